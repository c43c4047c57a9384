//! Unit tests of the task-id hasher.

use super::*;
use std::collections::{HashMap, HashSet};
use std::hash::BuildHasher;

#[test]
fn neighbouring_ids_get_neighbouring_buckets_and_varied_tags() {
    let hash = |id: usize| IdHash::default().hash_one(id);
    for id in [0, 1, 2, 1000, 123_456] {
        assert_eq!(hash(id) & 0xFFFF_FFFF, id as u64, "the low bits are the id");
    }
    let tags: HashSet<u64> = (0..1000).map(|id| hash(id) >> 57).collect();
    assert!(tags.len() > 100, "only {} distinct tags", tags.len());
}

#[test]
fn a_map_keyed_by_ids_works_as_with_the_default_hasher() {
    let mut map: HashMap<usize, usize, IdHash> = HashMap::default();
    // Ids below 12 000 (a multiple of six, so the counts below are exact),
    // or 1 200 under Miri (safe code only; every hash is slow there),
    // still enough to grow the table several times.
    let ids = if cfg!(miri) { 1_200 } else { 12_000 };
    for id in (0..ids).step_by(3) {
        map.insert(id, id * 2);
    }
    for id in (0..ids).step_by(6) {
        assert_eq!(map.remove(&id), Some(id * 2));
    }
    assert_eq!(map.len(), ids / 3 - ids / 6);
    assert!(map.keys().all(|id| id % 3 == 0 && id % 6 != 0));
}
