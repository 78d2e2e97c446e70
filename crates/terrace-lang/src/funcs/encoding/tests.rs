//! Tests for the encoding functions.
