//! The scheduler: runs a graph's nodes on a pool of worker threads as soon
//! as their dependencies are done. Visiting a node may fan out into jobs
//! (one per instance) followed by a finishing step; only the scheduler
//! thread touches in-degrees. A node whose dependency failed is skipped
//! and counts as failed itself, so independent work still completes.
//!
//! A panic in any callback is a bug in terrace. It is caught where it
//! happens, so the scheduler still hears from every task it handed out
//! and cannot wait forever; it fails that node, becomes an "Internal
//! error" naming the node, and ends the walk as Ctrl-C does: nothing new
//! starts, while work already running and closing providers still finish.

use crate::graph::Graph;
use std::any::Any;
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Condvar, Mutex, PoisonError};
use terrace_syntax::{Diagnostic, Diagnostics};

pub(crate) type Job<'s> = Box<dyn FnOnce() -> bool + Send + 's>;

/// What visiting a node produced.
pub(crate) enum Visit<'s> {
    /// The node is complete; `true` when it succeeded.
    Done(bool),
    /// Run `jobs` (in parallel), then `finish`; the node succeeded when all
    /// of them returned `true`.
    Fanout { jobs: Vec<Job<'s>>, finish: Job<'s> },
}

enum Task<'s> {
    Visit(usize),
    Job(Option<usize>, Job<'s>),
    Finish(usize, Job<'s>),
}

enum Msg<'s> {
    Visited(usize, Visit<'s>),
    /// A job no node owns is done.
    DetachedDone,
    /// The last of a node's jobs is done.
    JobsDone(usize),
    Finished(usize, bool),
}

/// The jobs of one node still running, counted by the workers: a node of
/// 50,000 instances would otherwise wake the scheduler 50,000 times, once
/// per job, where only the last one changes what it can do.
struct JobCounts {
    pending: Vec<AtomicUsize>,
    failed: Vec<AtomicBool>,
}

impl JobCounts {
    /// One job of `node` ended; `true` when it was the last.
    fn job_done(&self, node: usize, success: bool) -> bool {
        if !success {
            self.failed[node].store(true, Ordering::Relaxed);
        }
        // The last decrement sees every other job's failure flag: each
        // job's store comes before its own decrement (release), and the
        // last one acquires them all.
        self.pending[node].fetch_sub(1, Ordering::AcqRel) == 1
    }
}

struct Queue<'s> {
    tasks: Mutex<(VecDeque<Task<'s>>, bool)>,
    cv: Condvar,
}

impl<'s> Queue<'s> {
    fn push(&self, t: Task<'s>) {
        if let Ok(mut g) = self.tasks.lock() {
            g.0.push_back(t);
        }
        self.cv.notify_one();
    }
    /// Queues many tasks under one lock, waking every worker.
    fn push_all(&self, tasks: impl Iterator<Item = Task<'s>>) {
        if let Ok(mut g) = self.tasks.lock() {
            g.0.extend(tasks);
        }
        self.cv.notify_all();
    }
    fn close(&self) {
        if let Ok(mut g) = self.tasks.lock() {
            g.1 = true;
        }
        self.cv.notify_all();
    }
    fn pop(&self) -> Option<Task<'s>> {
        let mut g = self.tasks.lock().ok()?;
        loop {
            if let Some(t) = g.0.pop_front() {
                return Some(t);
            }
            if g.1 {
                return None;
            }
            g = self.cv.wait(g).ok()?;
        }
    }
}

/// The callbacks of one walk.
pub(crate) trait Walker<'s>: Sync {
    fn visit(&'s self, node: usize) -> Visit<'s>;
    /// Called on the scheduler thread when a node completes (also when it
    /// was skipped); returns jobs not tied to any node (closing providers).
    fn completed(&'s self, node: usize, ok: bool) -> Vec<Job<'s>>;
    /// Ctrl-C: no new nodes are started once this is true.
    fn stopping(&'s self) -> bool;
    /// Called once when `stopping` first turns true.
    fn stop(&'s self);
}

/// The text a panic was raised with, when it has one.
fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "no message".to_string()
    }
}

/// The diagnostic for a panic while working on `node` (a graph node's
/// name, or what the work was for when no node owns it).
pub(crate) fn internal_error(node: &str, payload: &(dyn Any + Send)) -> Diagnostic {
    Diagnostic::error(
        "Internal error",
        format!(
            "terrace failed unexpectedly while working on {node}: {}\n\nThis is a bug in terrace, not in the configuration. The operation was stopped: nothing further was started, and work already under way was allowed to finish.",
            panic_message(payload)
        ),
    )
}

/// Runs callbacks, turning a panic into an internal error and the end of
/// the walk.
struct PanicGuard<'g> {
    graph: &'g Graph,
    aborted: AtomicBool,
    errors: Mutex<Diagnostics>,
}

impl PanicGuard<'_> {
    /// `work` for `node` (none: work no node owns); `None` when it panicked.
    fn run<T>(&self, node: Option<usize>, work: impl FnOnce() -> T) -> Option<T> {
        match catch_unwind(AssertUnwindSafe(work)) {
            Ok(result) => Some(result),
            Err(payload) => {
                self.aborted.store(true, Ordering::SeqCst);
                let name = match node.and_then(|i| self.graph.nodes.get(i)) {
                    Some(n) => n.to_string(),
                    None => "the providers of this run".to_string(),
                };
                self.errors
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(internal_error(&name, payload.as_ref()));
                None
            }
        }
    }

    fn aborted(&self) -> bool {
        self.aborted.load(Ordering::SeqCst)
    }
}

/// Closes the queue when the scheduler leaves, also by a panic, so the
/// workers waiting on it end and the thread scope can be left.
struct CloseOnDrop<'q, 's>(&'q Queue<'s>);

impl Drop for CloseOnDrop<'_, '_> {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// Runs every node of `graph`; returns the internal errors met on the
/// way, one per callback that panicked.
#[must_use]
pub(crate) fn run<'s, W: Walker<'s>>(graph: &Graph, workers: usize, walker: &'s W) -> Diagnostics {
    let n = graph.nodes.len();
    let dependents = graph.dependents();
    let mut indeg: Vec<usize> = graph.deps.iter().map(|d| d.len()).collect();
    let mut dep_failed = vec![false; n];
    let mut ok = vec![true; n];
    let counts = JobCounts {
        pending: (0..n).map(|_| AtomicUsize::new(0)).collect(),
        failed: (0..n).map(|_| AtomicBool::new(false)).collect(),
    };
    let mut finishes: Vec<Option<Job<'s>>> = (0..n).map(|_| None).collect();
    let mut done = 0usize;
    let mut detached = 0usize;
    let mut stopped = false;

    let queue = Queue {
        tasks: Mutex::new((VecDeque::new(), false)),
        cv: Condvar::new(),
    };
    let (tx, rx) = mpsc::channel::<Msg<'s>>();
    let guard = PanicGuard {
        graph,
        aborted: AtomicBool::new(false),
        errors: Mutex::new(Diagnostics::new()),
    };
    let ending = || guard.aborted() || walker.stopping();

    std::thread::scope(|scope| {
        let _close = CloseOnDrop(&queue);
        for _ in 0..workers.max(1) {
            let tx = tx.clone();
            let queue = &queue;
            let guard = &guard;
            let ending = &ending;
            let counts = &counts;
            scope.spawn(move || {
                while let Some(task) = queue.pop() {
                    // Once stopping, nothing new starts: work already
                    // running finishes, queued visits and instance jobs
                    // are dropped as failed. Finishing steps and detached
                    // jobs (closing providers) still run.
                    let msg = match task {
                        Task::Visit(i) if ending() => Msg::Visited(i, Visit::Done(false)),
                        Task::Visit(i) => Msg::Visited(
                            i,
                            guard
                                .run(Some(i), || walker.visit(i))
                                .unwrap_or(Visit::Done(false)),
                        ),
                        Task::Job(Some(i), job) => {
                            let success = !ending() && guard.run(Some(i), job).unwrap_or(false);
                            if !counts.job_done(i, success) {
                                continue;
                            }
                            Msg::JobsDone(i)
                        }
                        Task::Job(None, job) => {
                            guard.run(None, job);
                            Msg::DetachedDone
                        }
                        Task::Finish(i, job) => {
                            Msg::Finished(i, guard.run(Some(i), job).unwrap_or(false))
                        }
                    };
                    if tx.send(msg).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);

        // Completing a node may make others ready or skip them; handled
        // with a worklist so long chains of skips do not recurse.
        let complete = |start: usize,
                        success: bool,
                        indeg: &mut Vec<usize>,
                        dep_failed: &mut Vec<bool>,
                        ok: &mut Vec<bool>,
                        done: &mut usize,
                        detached: &mut usize,
                        stopped: &mut bool| {
            let mut work = vec![(start, success)];
            while let Some((i, success)) = work.pop() {
                ok[i] = success;
                *done += 1;
                let detached_jobs = guard
                    .run(Some(i), || walker.completed(i, success))
                    .unwrap_or_default();
                for job in detached_jobs {
                    *detached += 1;
                    queue.push(Task::Job(None, job));
                }
                if !*stopped && walker.stopping() {
                    *stopped = true;
                    guard.run(None, || walker.stop());
                }
                for &d in &dependents[i] {
                    if !success {
                        dep_failed[d] = true;
                    }
                    indeg[d] -= 1;
                    if indeg[d] == 0 {
                        if dep_failed[d] || *stopped || guard.aborted() {
                            work.push((d, false));
                        } else {
                            queue.push(Task::Visit(d));
                        }
                    }
                }
            }
        };

        let mut roots = Vec::new();
        for (i, d) in indeg.iter().enumerate() {
            if *d == 0 {
                roots.push(i);
            }
        }
        if walker.stopping() {
            stopped = true;
            guard.run(None, || walker.stop());
        }
        for i in roots {
            if stopped {
                complete(
                    i,
                    false,
                    &mut indeg,
                    &mut dep_failed,
                    &mut ok,
                    &mut done,
                    &mut detached,
                    &mut stopped,
                );
            } else {
                queue.push(Task::Visit(i));
            }
        }

        while done < n || detached > 0 {
            let Ok(msg) = rx.recv() else { break };
            if !stopped && walker.stopping() {
                stopped = true;
                guard.run(None, || walker.stop());
            }
            match msg {
                Msg::Visited(i, Visit::Done(success)) => complete(
                    i,
                    success,
                    &mut indeg,
                    &mut dep_failed,
                    &mut ok,
                    &mut done,
                    &mut detached,
                    &mut stopped,
                ),
                Msg::Visited(i, Visit::Fanout { jobs, finish }) => {
                    if jobs.is_empty() {
                        queue.push(Task::Finish(i, finish));
                    } else {
                        // Counted before any of them can run.
                        counts.pending[i].store(jobs.len(), Ordering::Release);
                        finishes[i] = Some(finish);
                        queue.push_all(jobs.into_iter().map(|job| Task::Job(Some(i), job)));
                    }
                }
                Msg::DetachedDone => detached -= 1,
                Msg::JobsDone(i) => {
                    if counts.failed[i].load(Ordering::Acquire) {
                        ok[i] = false;
                    }
                    if let Some(f) = finishes[i].take() {
                        queue.push(Task::Finish(i, f));
                    }
                }
                Msg::Finished(i, success) => {
                    let success = success && ok[i];
                    complete(
                        i,
                        success,
                        &mut indeg,
                        &mut dep_failed,
                        &mut ok,
                        &mut done,
                        &mut detached,
                        &mut stopped,
                    )
                }
            }
        }
    });
    guard
        .errors
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Node;
    use std::collections::{BTreeSet, HashMap, HashSet};
    use terrace_addrs::Module;

    /// Node `i` fans out into `jobs[i]` jobs; the job `failing` fails.
    struct Fanouts {
        jobs: Vec<usize>,
        failing: (usize, usize),
        ran: AtomicUsize,
        visited: Mutex<Vec<usize>>,
        finished: Mutex<Vec<usize>>,
        completed: Mutex<Vec<(usize, bool)>>,
    }

    impl<'s> Walker<'s> for Fanouts {
        fn visit(&'s self, node: usize) -> Visit<'s> {
            self.visited.lock().expect("visited").push(node);
            let jobs = (0..self.jobs[node])
                .map(|j| {
                    Box::new(move || {
                        self.ran.fetch_add(1, Ordering::Relaxed);
                        self.failing != (node, j)
                    }) as Job<'s>
                })
                .collect();
            let finish = Box::new(move || {
                self.finished.lock().expect("finished").push(node);
                true
            });
            Visit::Fanout { jobs, finish }
        }
        fn completed(&'s self, node: usize, ok: bool) -> Vec<Job<'s>> {
            self.completed.lock().expect("completed").push((node, ok));
            Vec::new()
        }
        fn stopping(&'s self) -> bool {
            false
        }
        fn stop(&'s self) {}
    }

    #[test]
    fn one_failed_job_fails_its_node_and_skips_what_waits_for_it() {
        // 0 (500 jobs, one failing) <- 1; 2 (2,000 jobs) <- 3 (no jobs).
        let graph = Graph {
            nodes: (0..4)
                .map(|i| Node::Local(Module::root(), format!("n{i}")))
                .collect(),
            index: HashMap::new(),
            deps: vec![
                BTreeSet::new(),
                BTreeSet::from([0]),
                BTreeSet::new(),
                BTreeSet::from([2]),
            ],
            resource_deps: HashMap::new(),
            cbd: HashSet::new(),
            data_read_deps: HashMap::new(),
        };
        let walker = Fanouts {
            jobs: vec![500, 10, 2000, 0],
            failing: (0, 250),
            ran: AtomicUsize::new(0),
            visited: Mutex::new(Vec::new()),
            finished: Mutex::new(Vec::new()),
            completed: Mutex::new(Vec::new()),
        };
        let errors = run(&graph, 4, &walker);
        assert!(errors.is_empty(), "{errors:?}");
        let mut completed = walker.completed.into_inner().expect("completed");
        completed.sort_unstable();
        assert_eq!(completed, [(0, false), (1, false), (2, true), (3, true)]);
        // Every job of a visited node ran, and its finishing step after
        // them; the node after a failed one was never visited.
        assert_eq!(walker.ran.load(Ordering::Relaxed), 2500);
        let mut visited = walker.visited.into_inner().expect("visited");
        visited.sort_unstable();
        assert_eq!(visited, [0, 2, 3]);
        let mut finished = walker.finished.into_inner().expect("finished");
        finished.sort_unstable();
        assert_eq!(finished, [0, 2, 3]);
    }
}
