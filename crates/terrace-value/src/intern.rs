//! One shared allocation for each distinct object and tuple type.
//!
//! Every object value carries its type, and a configuration with many
//! instances makes the same type over and over: each `terraform_data`
//! object read from a state, each result of an object constructor, each
//! conversion to a schema type. Interned, a hundred thousand instances
//! share one type instead of holding a hundred thousand copies of its
//! attribute names, and comparing two types is a pointer comparison in the
//! common case.
//!
//! The rule that makes this cheap: every `Arc<ObjectType>` and every tuple
//! type's element list is made here (the constructors in `types.rs` are
//! the only way to make one), so two structurally equal object types are
//! the same allocation. The lookup key can therefore compare nested object
//! types by address and needs no walk of the whole type tree, which keeps
//! building an object from its attributes O(attributes) however deeply
//! the values nest.
//!
//! The table holds weak references: a type no value uses any more is
//! freed, and its entry is swept the next time its shard has doubled.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::sync::{Arc, Mutex, PoisonError, Weak};

use crate::types::{ObjectType, Type};

/// Shards, so that the plan's worker threads rarely wait for each other.
const SHARDS: usize = 32;

struct Shard<T> {
    /// Entries by the key's hash; a few share a hash only by collision.
    /// The key is a hash already: it is mixed once more, not SipHashed.
    entries: HashMap<u64, Vec<Weak<T>>, BuildHasherDefault<KeyHasher>>,
    len: usize,
    /// The entry count after the last sweep: the next sweep waits until
    /// the shard has doubled, so sweeping is amortised O(1) per entry.
    swept_at: usize,
}

impl<T> Shard<T> {
    fn new() -> Self {
        Shard {
            entries: HashMap::default(),
            len: 0,
            swept_at: 0,
        }
    }

    fn find(&self, hash: u64, same: impl Fn(&T) -> bool) -> Option<Arc<T>> {
        self.entries
            .get(&hash)?
            .iter()
            .filter_map(Weak::upgrade)
            .find(|candidate| same(candidate))
    }

    fn insert(&mut self, hash: u64, value: &Arc<T>) {
        if self.len >= 2 * self.swept_at + 64 {
            self.entries.retain(|_, bucket| {
                bucket.retain(|w| w.strong_count() > 0);
                !bucket.is_empty()
            });
            self.len = self.entries.values().map(Vec::len).sum();
            self.swept_at = self.len;
        }
        self.entries
            .entry(hash)
            .or_default()
            .push(Arc::downgrade(value));
        self.len += 1;
    }
}

struct Table<T> {
    shards: Vec<Mutex<Shard<T>>>,
}

impl<T> Table<T> {
    fn new() -> Self {
        Table {
            shards: (0..SHARDS).map(|_| Mutex::new(Shard::new())).collect(),
        }
    }

    /// The interned value equal to the key (`same`), or the one `make`
    /// builds, which is then interned.
    fn get_or_insert(
        &self,
        hash: u64,
        same: impl Fn(&T) -> bool,
        make: impl FnOnce() -> T,
    ) -> Arc<T> {
        // The hash's top bits: a multiplicative hash mixes those best.
        let shard = &self.shards[((hash >> 59) as usize) % SHARDS];
        let mut shard = shard.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(found) = shard.find(hash, same) {
            return found;
        }
        let made = Arc::new(make());
        shard.insert(hash, &made);
        made
    }
}

/// The interning key's hash: a multiply-rotate hash (as rustc's FxHash)
/// rather than std's SipHash, which guards a map against keys chosen to
/// collide and cost a few percent of a large apply here, hashing every
/// object value's attribute names. A collision only lengthens one bucket.
#[derive(Default)]
struct KeyHasher(u64);

impl KeyHasher {
    const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(Self::SEED);
    }
}

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

fn objects() -> &'static Table<ObjectType> {
    static TABLE: std::sync::OnceLock<Table<ObjectType>> = std::sync::OnceLock::new();
    TABLE.get_or_init(Table::new)
}

fn tuples() -> &'static Table<Vec<Type>> {
    static TABLE: std::sync::OnceLock<Table<Vec<Type>>> = std::sync::OnceLock::new();
    TABLE.get_or_init(Table::new)
}

/// Hashes a type as the interning key sees it: nested object and tuple
/// types by address (they are interned), the rest by shape.
fn hash_shallow(ty: &Type, h: &mut KeyHasher) {
    std::mem::discriminant(ty).hash(h);
    match ty {
        Type::Bool | Type::Number | Type::String | Type::Dynamic => {}
        Type::List(e) | Type::Set(e) | Type::Map(e) => hash_shallow(e, h),
        Type::Object(o) => (Arc::as_ptr(o) as usize).hash(h),
        Type::Tuple(t) => (Arc::as_ptr(t) as usize).hash(h),
    }
}

/// Equality under the same rule as [`hash_shallow`]; for interned nested
/// types it is the same as structural equality.
fn eq_shallow(a: &Type, b: &Type) -> bool {
    match (a, b) {
        (Type::Bool, Type::Bool)
        | (Type::Number, Type::Number)
        | (Type::String, Type::String)
        | (Type::Dynamic, Type::Dynamic) => true,
        (Type::List(x), Type::List(y))
        | (Type::Set(x), Type::Set(y))
        | (Type::Map(x), Type::Map(y)) => eq_shallow(x, y),
        (Type::Object(x), Type::Object(y)) => Arc::ptr_eq(x, y),
        (Type::Tuple(x), Type::Tuple(y)) => Arc::ptr_eq(x, y),
        _ => false,
    }
}

/// The interned object type with these attributes (sorted by name, as a
/// `BTreeMap` iterates them) and optional attributes. `attributes` is
/// walked twice, to hash and to compare; the names are copied only when
/// the type is new.
pub(crate) fn object<'a, I>(attributes: I, optional: &BTreeSet<String>) -> Arc<ObjectType>
where
    I: Iterator<Item = (&'a str, &'a Type)> + Clone,
{
    let mut h = KeyHasher::default();
    let mut count = 0usize;
    for (name, ty) in attributes.clone() {
        name.hash(&mut h);
        hash_shallow(ty, &mut h);
        count += 1;
    }
    count.hash(&mut h);
    optional.hash(&mut h);
    let hash = h.finish();
    objects().get_or_insert(
        hash,
        |candidate| {
            candidate.attributes.len() == count
                && &candidate.optional == optional
                && candidate
                    .attributes
                    .iter()
                    .zip(attributes.clone())
                    .all(|((n1, t1), (n2, t2))| n1 == n2 && eq_shallow(t1, t2))
        },
        || ObjectType {
            attributes: attributes
                .clone()
                .map(|(n, t)| (n.to_string(), t.clone()))
                .collect::<BTreeMap<_, _>>(),
            optional: optional.clone(),
        },
    )
}

/// The interned element list of a tuple type.
pub(crate) fn tuple<'a, I>(elements: I) -> Arc<Vec<Type>>
where
    I: Iterator<Item = &'a Type> + Clone,
{
    let mut h = KeyHasher::default();
    let mut count = 0usize;
    for ty in elements.clone() {
        hash_shallow(ty, &mut h);
        count += 1;
    }
    count.hash(&mut h);
    let hash = h.finish();
    tuples().get_or_insert(
        hash,
        |candidate| {
            candidate.len() == count
                && candidate
                    .iter()
                    .zip(elements.clone())
                    .all(|(a, b)| eq_shallow(a, b))
        },
        || elements.clone().cloned().collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_types_share_one_allocation() {
        let inner = || Type::object([("b".to_string(), Type::Bool)]);
        let outer = || {
            Type::object([
                ("a".to_string(), Type::list(inner())),
                ("t".to_string(), Type::tuple(vec![inner(), Type::String])),
            ])
        };
        let (Type::Object(x), Type::Object(y)) = (outer(), outer()) else {
            panic!("object types");
        };
        assert!(Arc::ptr_eq(&x, &y));
        let other = Type::object([("a".to_string(), Type::list(Type::String))]);
        assert_ne!(Type::Object(x), other);
    }

    #[test]
    fn optional_attributes_are_part_of_the_type() {
        let attrs: BTreeMap<String, Type> = [("a".to_string(), Type::String)].into();
        let plain = Type::object_with_optional(attrs.clone(), BTreeSet::new());
        let optional = Type::object_with_optional(attrs, ["a".to_string()].into());
        assert_ne!(plain, optional);
    }

    #[test]
    fn unused_types_are_freed_and_swept() {
        let before = {
            let t = Type::object([("only-here-1".to_string(), Type::Number)]);
            let Type::Object(o) = &t else {
                panic!("object type");
            };
            Arc::downgrade(o)
        };
        assert_eq!(before.strong_count(), 0);
        // Many distinct short-lived types: the shards sweep dead entries
        // as they grow, so the table does not keep one per type ever made.
        for i in 0..10_000 {
            let _ = Type::object([(format!("sweep-{i}"), Type::Bool)]);
        }
        let live: usize = objects()
            .shards
            .iter()
            .map(|s| s.lock().map(|s| s.len).unwrap_or(0))
            .sum();
        assert!(live < 10_000, "{live} entries kept");
    }
}
