//! How a task of the single-threaded executor is woken: the wake-up state
//! a task carries ([`TaskWaker`]) and the queues a wake-up puts it in
//! ([`RunQueue`], with its lock-free
//! [local queue](local_queue::LocalQueue)).
//!
//! This is on the crate's ground floor (it imports only `sync` and
//! `thread_mark`) because two layers share it without either owning it: a
//! mailbox's channel embeds its consumer task's [`TaskWaker`] and wakes the
//! task through it (a plain flag and a push, no `Waker` call), and the
//! single-threaded executor registers its tasks with it and drains the
//! queues. Kept in the executor, it made the mailbox import the executor,
//! which imports the mailbox. The executor keeps its run loop: what it
//! polls, in which order, and what it checks at the end of a step.

mod local_queue;
mod run_queue;
mod task_waker;

pub(crate) use local_queue::Running;
pub(crate) use run_queue::RunQueue;
pub(crate) use task_waker::TaskWaker;
