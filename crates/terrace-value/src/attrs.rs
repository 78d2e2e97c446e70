//! The attributes of an object value, or the elements of a map value: a
//! list sorted by name.
//!
//! Most objects have a handful of attributes. A `BTreeMap` node has room
//! for eleven entries whatever the count, so each small object cost about
//! 800 bytes; a sorted list costs what its entries do. A configuration
//! with a hundred thousand instances holds several objects per instance
//! (the state's, the configuration's, the planned one), which made this
//! the largest part of a large plan's memory. Lookups are binary searches.
//!
//! The methods follow `BTreeMap`'s where they mean the same (`get`,
//! `iter`, `keys`, `values`, `len`), so reading code stays as it was;
//! changing attributes goes through [`Attrs::to_map`] and a new value.

use std::collections::BTreeMap;
use std::fmt;

use crate::value::Value;

#[derive(Clone, Default)]
pub struct Attrs {
    /// Sorted by name, names unique.
    entries: Box<[(String, Value)]>,
}

impl Attrs {
    pub fn new() -> Attrs {
        Attrs::default()
    }

    /// From entries already sorted by name with no name twice (a decoder
    /// reading a sorted source, a map's iteration).
    pub(crate) fn from_sorted(entries: Vec<(String, Value)>) -> Attrs {
        debug_assert!(entries.windows(2).all(|w| w[0].0 < w[1].0));
        Attrs {
            entries: entries.into_boxed_slice(),
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn position(&self, name: &str) -> Option<usize> {
        self.entries
            .binary_search_by(|(k, _)| k.as_str().cmp(name))
            .ok()
    }

    pub fn get<Q: AsRef<str> + ?Sized>(&self, name: &Q) -> Option<&Value> {
        self.position(name.as_ref()).map(|i| &self.entries[i].1)
    }

    /// The entry with its stored name.
    pub fn get_key_value<Q: AsRef<str> + ?Sized>(&self, name: &Q) -> Option<(&String, &Value)> {
        self.position(name.as_ref()).map(|i| {
            let (k, v) = &self.entries[i];
            (k, v)
        })
    }

    pub fn contains_key<Q: AsRef<str> + ?Sized>(&self, name: &Q) -> bool {
        self.position(name.as_ref()).is_some()
    }

    pub fn iter(&self) -> Iter<'_> {
        Iter(self.entries.iter())
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &String> + ExactSizeIterator + Clone {
        self.entries.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Value> + ExactSizeIterator + Clone {
        self.entries.iter().map(|(_, v)| v)
    }

    pub fn first_key_value(&self) -> Option<(&String, &Value)> {
        self.entries.first().map(|(k, v)| (k, v))
    }

    pub fn last_key_value(&self) -> Option<(&String, &Value)> {
        self.entries.last().map(|(k, v)| (k, v))
    }

    /// A map of copies (the values are shared), to change and make a new
    /// value from.
    pub fn to_map(&self) -> BTreeMap<String, Value> {
        self.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
    }
}

/// `attrs["name"]`, as on a `BTreeMap`: the caller knows the entry is
/// there, and a missing one is a bug that stops the program.
impl<Q: AsRef<str> + ?Sized> std::ops::Index<&Q> for Attrs {
    type Output = Value;

    fn index(&self, name: &Q) -> &Value {
        let at = self.position(name.as_ref()).unwrap_or(self.entries.len());
        &self.entries[at].1
    }
}

impl From<BTreeMap<String, Value>> for Attrs {
    fn from(map: BTreeMap<String, Value>) -> Attrs {
        Attrs::from_sorted(map.into_iter().collect())
    }
}

impl FromIterator<(String, Value)> for Attrs {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(iter: I) -> Attrs {
        Attrs::from(iter.into_iter().collect::<BTreeMap<_, _>>())
    }
}

impl fmt::Debug for Attrs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// The entries of [`Attrs`] in name order, as `BTreeMap::iter` gives them.
#[derive(Clone)]
pub struct Iter<'a>(std::slice::Iter<'a, (String, Value)>);

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a String, &'a Value);

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v)| (k, v))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back().map(|(k, v)| (k, v))
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a Attrs {
    type Item = (&'a String, &'a Value);
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_like_the_map_it_was_made_from() {
        let map: BTreeMap<String, Value> = [("b", 2), ("a", 1), ("c", 3)]
            .into_iter()
            .map(|(k, n)| (k.to_string(), Value::int(n)))
            .collect();
        let attrs = Attrs::from(map.clone());
        assert_eq!(attrs.len(), 3);
        assert!(attrs.keys().eq(map.keys()));
        assert!(attrs.get("b").is_some_and(|v| v.raw_equals(&Value::int(2))));
        assert!(attrs.get(&"z".to_string()).is_none());
        assert!(attrs.contains_key("c") && !attrs.contains_key(""));
        assert_eq!(attrs.iter().next_back().map(|(k, _)| k.as_str()), Some("c"));
        assert_eq!(attrs.to_map().len(), 3);
        assert!(Attrs::new().get("a").is_none());
    }
}
