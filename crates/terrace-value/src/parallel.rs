//! Work over long lists (the changes of a plan, the objects of a state)
//! shared out to every core, the results in the order of the list.

/// `f` of every item, in order; a list long enough to be worth it is cut
/// into one contiguous run per core.
pub fn map_in_parallel<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    // Below this many items a thread costs more than it saves.
    const MIN_PER_THREAD: usize = 512;
    if items.len() < 2 * MIN_PER_THREAD {
        return items.iter().map(f).collect();
    }
    let threads = cores().min(items.len() / MIN_PER_THREAD);
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(threads);
    let f = &f;
    std::thread::scope(|scope| {
        let parts: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(f).collect::<Vec<R>>()))
            .collect();
        parts
            .into_iter()
            .flat_map(|part| match part.join() {
                Ok(done) => done,
                // A panic in `f` is the caller's, as it would be without
                // the threads.
                Err(panic) => std::panic::resume_unwind(panic),
            })
            .collect()
    })
}

/// The cores this process may use, asked once: the question reads the
/// cgroup's files, which costs more than a short list's work.
fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_mapped_on_several_threads_keeps_its_order() {
        for len in [0, 1, 511, 1024, 1025, 4099] {
            let items: Vec<usize> = (0..len).collect();
            let doubled = map_in_parallel(&items, |i| i * 2);
            assert_eq!(doubled, items.iter().map(|i| i * 2).collect::<Vec<_>>());
        }
    }
}
