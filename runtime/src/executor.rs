//! Executors: what polls the model tasks.
//!
//! Each model runs as one task: a concrete future that takes a message from
//! the model's mailbox, dispatches it, and loops. The executor polls tasks
//! that were woken until none is left; the simulation then knows the time
//! step is complete (or, if some model is still not idle, deadlocked).
//!
//! The single-threaded executor ([`st`]) is FIFO and deterministic: the same
//! bench gives the same order of polls on every run and machine.

pub(crate) mod current;
pub(crate) mod st;

use std::any::Any;
use std::sync::Arc;

/// What the simulation can ask a model's mailbox without knowing its type.
pub(crate) trait MailboxProbe: Send + Sync {
    /// True if the model waits on an empty mailbox.
    fn is_idle(&self) -> bool;
    /// Number of messages waiting.
    fn pending(&self) -> usize;
}

impl<T: Send> MailboxProbe for crate::mailbox::channel::Channel<T> {
    fn is_idle(&self) -> bool {
        crate::mailbox::channel::Channel::is_idle(self)
    }

    fn pending(&self) -> usize {
        self.len()
    }
}

/// Who a task is, for diagnostics.
#[derive(Clone)]
pub(crate) struct TaskMeta {
    /// Model instance name, or `"bench"`.
    pub(crate) name: Arc<str>,
    /// Model type name.
    pub(crate) model_type: &'static str,
    /// The model's mailbox; `None` for a bench task.
    pub(crate) mailbox: Option<Arc<dyn MailboxProbe>>,
}

/// The text of a panic payload.
pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "<non-string panic payload>".to_string()
    }
}
