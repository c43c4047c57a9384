//! The connection list shared by outputs and event sources, and the
//! allocation-free fan-out send over it.

use std::fmt;
use std::sync::Arc;
use std::task::{Context, Poll};

use super::input::InputFor;
use super::sink::Sink;
use super::target::{identity_some, InputConnection, Target};
use crate::mailbox::IntoAddress;

/// The connections of one output or event source, in connection order.
pub(crate) struct Fanout<T> {
    /// Where each sent value goes; shared with in-flight source events.
    targets: Targets<T>,
}

/// A list of targets that keeps a single one inline.
///
/// Most outputs have exactly one connection. Holding it in the output
/// itself, rather than in a vector's heap buffer, saves a dependent load
/// (often a cache miss in a large bench) on every send.
///
/// Two or more are a boxed `Vec` rather than a `Vec` in place: a `Vec`'s
/// capacity has unused values that the compiler would borrow to encode the
/// variant, so telling the one-connection case apart would cost about ten
/// instructions per send instead of one comparison. (A boxed slice has no
/// capacity either, but growing it by one reallocates the whole list:
/// wiring an event source to 10⁶ models took 4 s instead of 0.1.)
enum Targets<T> {
    /// No connection.
    None,
    /// One connection, inline.
    One(Arc<dyn Target<T>>),
    /// Two or more.
    #[expect(
        clippy::box_collection,
        reason = "a plain tag for the one-connection case; see the type's doc"
    )]
    Many(Box<Vec<Arc<dyn Target<T>>>>),
}

impl<T> Targets<T> {
    /// Appends `target`.
    fn push(&mut self, target: Arc<dyn Target<T>>) {
        *self = match std::mem::replace(self, Targets::None) {
            Targets::None => Targets::One(target),
            Targets::One(first) => Targets::Many(Box::new(vec![first, target])),
            Targets::Many(mut all) => {
                all.push(target);
                Targets::Many(all)
            }
        };
    }

    /// The targets, in connection order.
    #[inline]
    fn as_slice(&self) -> &[Arc<dyn Target<T>>] {
        match self {
            Targets::None => &[],
            Targets::One(one) => std::slice::from_ref(one),
            Targets::Many(all) => all,
        }
    }
}

impl<T: Clone + Send + 'static> Fanout<T> {
    /// No connections.
    pub(crate) fn new() -> Self {
        Fanout {
            targets: Targets::None,
        }
    }

    /// Connects to an input taking `T`.
    pub(crate) fn connect<P: InputFor<T>>(&mut self, port: P, address: impl IntoAddress<P::Model>) {
        self.add(InputConnection {
            address: address.into_address(),
            port: port.into_input_port(),
            adapt: identity_some::<T>,
        });
    }

    /// Connects to an input taking `U`, converting each value with `map`.
    pub(crate) fn map_connect<U, P>(
        &mut self,
        map: impl Fn(T) -> U + Send + Sync + 'static,
        port: P,
        address: impl IntoAddress<P::Model>,
    ) where
        U: Send + 'static,
        P: InputFor<U>,
    {
        self.add(InputConnection {
            address: address.into_address(),
            port: port.into_input_port(),
            adapt: move |v| Some(map(v)),
        });
    }

    /// Connects to an input taking `U`; values mapped to `None` are not sent.
    pub(crate) fn filter_map_connect<U, P>(
        &mut self,
        filter_map: impl Fn(T) -> Option<U> + Send + Sync + 'static,
        port: P,
        address: impl IntoAddress<P::Model>,
    ) where
        U: Send + 'static,
        P: InputFor<U>,
    {
        self.add(InputConnection {
            address: address.into_address(),
            port: port.into_input_port(),
            adapt: filter_map,
        });
    }

    /// Connects to a sink read from the bench.
    pub(crate) fn connect_sink(&mut self, sink: &impl Sink<T>) {
        self.targets.push(sink.target());
    }

    fn add(&mut self, target: impl Target<T> + 'static) {
        self.targets.push(Arc::new(target));
    }

    /// Polls `send` over these connections.
    ///
    /// Matches the one-connection case on the list itself, without going
    /// through a slice: that is a single comparison, where decoding the
    /// enum into a slice first costs about ten instructions per send.
    #[inline]
    pub(crate) fn poll_send(&self, send: &mut FanoutSend<T>, cx: &mut Context<'_>) -> Poll<()> {
        match &self.targets {
            Targets::One(only) => send.poll_one(&**only, cx),
            targets => send.poll_many(targets.as_slice(), cx),
        }
    }

    /// The connections, in order.
    #[inline]
    pub(crate) fn targets(&self) -> &[Arc<dyn Target<T>>] {
        self.targets.as_slice()
    }

    /// Number of connections.
    pub(crate) fn len(&self) -> usize {
        self.targets.as_slice().len()
    }
}

impl<T> fmt::Debug for Fanout<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Fanout")
            .field("connections", &self.targets.as_slice().len())
            .finish()
    }
}

/// Progress of one value through the connections of a fan-out.
///
/// Each connection but the last gets a clone; the last gets the original.
/// A value that met a full mailbox is kept here until it can be delivered,
/// so a send never clones twice for one connection.
///
/// Most outputs have one connection, so that case skips the bookkeeping:
/// the original goes straight to it and, if its mailbox is full, waits in
/// `value` (`next` and `pending` stay untouched).
#[derive(Debug)]
pub(crate) struct FanoutSend<T> {
    /// Index of the next connection to serve.
    next: usize,
    /// The original value, until the last connection takes it.
    value: Option<T>,
    /// The copy for connection `next`, when its mailbox was full.
    pending: Option<T>,
}

impl<T: Clone> FanoutSend<T> {
    /// Starts sending `value`.
    #[inline]
    pub(crate) fn new(value: T) -> Self {
        FanoutSend {
            next: 0,
            value: Some(value),
            pending: None,
        }
    }

    /// The index of the connection being served (the number of
    /// connections served, once the send is complete).
    pub(crate) fn position(&self) -> usize {
        self.next
    }

    /// Delivers to each connection in order; `Pending` while one is full.
    ///
    /// Every poll of one send must be given the same `targets`.
    #[inline]
    pub(crate) fn poll(
        &mut self,
        targets: &[Arc<dyn Target<T>>],
        cx: &mut Context<'_>,
    ) -> Poll<()> {
        match targets {
            [only] => self.poll_one(&**only, cx),
            _ => self.poll_many(targets, cx),
        }
    }

    /// Delivers to the one connection: the original, no clone, no index.
    #[inline]
    fn poll_one(&mut self, target: &dyn Target<T>, cx: &mut Context<'_>) -> Poll<()> {
        // Only an already-completed send has no value left.
        let Some(value) = self.value.take() else {
            return Poll::Ready(());
        };
        match target.try_send(value, cx) {
            Ok(()) => Poll::Ready(()),
            Err(value) => {
                self.value = Some(value);
                Poll::Pending
            }
        }
    }

    /// Delivers to two or more connections (or none), in order.
    fn poll_many(&mut self, targets: &[Arc<dyn Target<T>>], cx: &mut Context<'_>) -> Poll<()> {
        while let Some(target) = targets.get(self.next) {
            let is_last = self.next + 1 == targets.len();
            let value = match self.pending.take() {
                Some(value) => Some(value),
                None if is_last => self.value.take(),
                None => self.value.clone(),
            };
            // Only an already-completed send has no value left.
            let Some(value) = value else {
                return Poll::Ready(());
            };
            match target.try_send(value, cx) {
                Ok(()) => self.next += 1,
                Err(value) => {
                    self.pending = Some(value);
                    return Poll::Pending;
                }
            }
        }
        Poll::Ready(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    use std::task::Waker;

    /// A value that counts its clones.
    #[derive(Debug)]
    struct Counted(u32, Arc<AtomicUsize>);

    impl Clone for Counted {
        fn clone(&self) -> Self {
            self.1.fetch_add(1, Ordering::Relaxed);
            Counted(self.0, self.1.clone())
        }
    }

    /// A connection whose mailbox is full for its first `full` sends.
    struct Recorder {
        full: AtomicUsize,
        got: Mutex<Vec<u32>>,
    }

    impl Recorder {
        fn new(full: usize) -> Arc<Self> {
            Arc::new(Recorder {
                full: AtomicUsize::new(full),
                got: Mutex::new(Vec::new()),
            })
        }

        fn got(&self) -> Vec<u32> {
            self.got.lock().unwrap().clone()
        }
    }

    impl Target<Counted> for Recorder {
        fn try_send(&self, value: Counted, _cx: &mut Context<'_>) -> Result<(), Counted> {
            if self.full.load(Ordering::Relaxed) > 0 {
                self.full.fetch_sub(1, Ordering::Relaxed);
                return Err(value);
            }
            self.got.lock().unwrap().push(value.0);
            Ok(())
        }
    }

    /// How a send is polled: through the output's list, or through a
    /// slice of it (as event sources do).
    #[derive(Clone, Copy)]
    enum Via {
        Fanout,
        Slice,
    }

    /// Polls a send of 7 over connections with mailboxes full for the
    /// given numbers of sends, until it completes; returns the number of
    /// `Pending`s and of clones, and what each connection got.
    fn send_all(full: &[usize], via: Via) -> (usize, usize, Vec<Vec<u32>>) {
        let recorders: Vec<_> = full.iter().map(|&f| Recorder::new(f)).collect();
        let mut fanout = Fanout::new();
        for recorder in &recorders {
            fanout.targets.push(recorder.clone());
        }
        let clones = Arc::new(AtomicUsize::new(0));
        let mut send = FanoutSend::new(Counted(7, clones.clone()));
        let mut cx = Context::from_waker(Waker::noop());
        let mut poll = |send: &mut FanoutSend<Counted>| match via {
            Via::Fanout => fanout.poll_send(send, &mut cx),
            Via::Slice => send.poll(fanout.targets(), &mut cx),
        };
        let mut pendings = 0;
        while poll(&mut send).is_pending() {
            pendings += 1;
        }
        // A completed send stays completed and delivers nothing more.
        assert!(poll(&mut send).is_ready());
        let got = recorders.iter().map(|r| r.got()).collect();
        (pendings, clones.load(Ordering::Relaxed), got)
    }

    #[test]
    fn one_connection_waits_for_room_and_gets_the_original_once() {
        for via in [Via::Fanout, Via::Slice] {
            assert_eq!(send_all(&[2], via), (2, 0, vec![vec![7]]));
        }
    }

    #[test]
    fn many_connections_are_served_in_order_with_one_clone_each_but_the_last() {
        for via in [Via::Fanout, Via::Slice] {
            let (pendings, clones, got) = send_all(&[0, 1, 2], via);
            assert_eq!((pendings, clones), (3, 2));
            assert_eq!(got, [[7], [7], [7]]);
        }
    }

    #[test]
    fn the_list_stays_within_three_words() {
        assert!(std::mem::size_of::<Targets<u64>>() <= 3 * std::mem::size_of::<usize>());
    }

    #[test]
    fn no_connection_sends_nothing() {
        for via in [Via::Fanout, Via::Slice] {
            assert_eq!(send_all(&[], via), (0, 0, vec![]));
        }
    }
}
