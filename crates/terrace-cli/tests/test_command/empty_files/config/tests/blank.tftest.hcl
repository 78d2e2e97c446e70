# Nothing to run yet.
