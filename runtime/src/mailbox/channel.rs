//! The bounded multi-producer, single-consumer channel behind a mailbox.
//!
//! A lock-free [array queue](super::queue) holds the messages; its capacity
//! is fixed when the mailbox is made and the storage is allocated once, so a
//! send never allocates. The consumer (the model's task) waits on an empty
//! queue by registering its waker in a [`ConsumerWaker`] and setting the
//! `parked` flag, which a push clears, waking the waker if it was set (see
//! `consumer_waker.rs` for why a swap on each side is enough); a producer
//! that finds the queue full takes a place in the [`WaitList`] (its
//! [`WaitTicket`] keeps it across polls) and is woken, first come first
//! served, when the consumer frees a slot for it.
//!
//! On the single-threaded executor, the channel skips the waker machinery:
//! the executor hands it the consumer task's own waker when the model is
//! spawned, the consumer parks by setting a flag, and a push on the
//! executor's thread that finds the flag set clears it and queues the task
//! itself — plain loads and stores, no read-modify-write. A push from any
//! other thread wakes the task through the executor's shared queue every
//! time, whatever the flag says, so no wake-up is lost to a flag read
//! without synchronisation (it leaves the flag set, which the consumer
//! clears after its pop). (The claim of a slot stays a compare-and-swap
//! on every executor, which keeps the queue sound whoever pushes.)
//!
//! Producers hand in a *constructor* rather than a message
//! ([`Channel::try_push_with`]): the message is only built once a slot is
//! claimed, so a full queue hands the argument back intact and mapping
//! closures run exactly once per delivered message.
//!
//! The bench's own deliveries never wait: while it delivers, a message
//! that finds the queue full goes to the channel's [`Overflow`] and holds
//! the queue until the consumer has read it (see `overflow.rs`, which
//! keeps the same-time rule).

use std::sync::OnceLock;
use std::task::{Context, Poll, Waker};

use super::overflow::Overflow;
use super::queue::{ArrayQueue, Claim, ClaimError, Popped};
use super::wait_list::{WaitList, WaitTicket};
use crate::bench::BenchId;
use crate::model::PortKind;
use crate::name::Name;
use crate::poll_report::{self, Misaddressed};
use crate::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use crate::wake::TaskWaker;
use consumer_waker::ConsumerWaker;

mod consumer_waker;

/// What a mailbox knows about the model that owns it once it is added to a
/// bench.
#[derive(Debug)]
pub(crate) struct Binding {
    /// The model instance's name, as given to `SimInit::add_model`
    /// (inline when short: no allocation for most models).
    pub(crate) name: Name,
    /// The model's place in its bench's add order (from 0), by which a
    /// snapshot names a pending event's recipient and the topology a
    /// connection's.
    pub(crate) place: u32,
}

/// A bounded MPSC queue with async wake-ups on both sides.
///
/// `repr(C)`, hot fields first: a send and a receive touch the queue, the
/// single-threaded executor's waker state, the `parked` flag and the wait
/// list, which make up the first 64 bytes; the binding and the
/// multi-threaded executor's waker, rarely touched on the single-threaded
/// executor, come last, so that a message hop touches fewer cache lines.
#[repr(C)]
pub(crate) struct Channel<T> {
    /// The messages.
    queue: ArrayQueue<T>,
    /// The consumer task's waker state on the single-threaded executor,
    /// kept here rather than in an allocation of its own (one cache miss
    /// and one allocation fewer per model); live once the task is spawned
    /// there (`local_consumer.get()`).
    local_consumer: TaskWaker,
    /// True while the consumer waits on an empty queue (written by the
    /// consumer, and by the producer that wakes it: on the single-threaded
    /// executor with plain stores on its thread, but for the consumer's
    /// swap of a flag it finds still set after a pop; on the
    /// multi-threaded one with a swap on each side).
    parked: AtomicBool,
    /// The bench the owning model was added to (`BenchId::to_raw`; 0 until
    /// then), for the cold check of a sender's bench (see `crate::bench`).
    /// Here, beside `parked`, it fills padding (a field of `binding` grows
    /// the channel by 8 bytes: the model's place does, still within the
    /// same malloc chunk, see `executor/st.rs`'s size test).
    bench: AtomicU32,
    /// Producers waiting for a free slot.
    producers: WaitList,
    /// Set once, when the owning model is added to a bench.
    binding: OnceLock<Binding>,
    /// The consumer's waker on the multi-threaded executor, registered
    /// when it first waits on an empty queue (or by the executor spawning
    /// a restored bench's task, see `park_unpolled_remote`).
    consumer: ConsumerWaker,
    /// Messages the bench delivered past the queue's capacity, read after
    /// the queue's; the queue is held while there are any.
    overflow: Overflow<T>,
}

/// Outcome of a push attempt that did not need to wait.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Pushed {
    /// The message is queued (or was filtered out by the constructor).
    Delivered,
    /// The model no longer exists; the message was dropped.
    Closed,
    /// The mailbox was never added to a bench; the message was dropped.
    Unbound,
}

impl<T> Channel<T> {
    /// A channel holding at most `capacity` messages, clamped to
    /// `1..=ArrayQueue::<T>::max_capacity()`.
    pub(crate) fn new(capacity: usize) -> Self {
        Channel {
            queue: ArrayQueue::new(capacity),
            local_consumer: TaskWaker::new(),
            parked: AtomicBool::new(false),
            bench: AtomicU32::new(0),
            producers: WaitList::new(),
            binding: OnceLock::new(),
            consumer: ConsumerWaker::new(),
            overflow: Overflow::new(),
        }
    }

    /// The capacity given at construction.
    pub(crate) fn capacity(&self) -> usize {
        self.queue.capacity()
    }

    /// Records the model instance that owns this channel, the bench it was
    /// added to and its place there; false if it was already added to a
    /// bench.
    pub(crate) fn bind(&self, name: Name, bench: BenchId, place: u32) -> bool {
        // Stored before the binding is published (a release), read after
        // it is seen (an acquire): `bench()` never sees a bound channel
        // without its bench. A second `bind` leaves both alone.
        if self.binding.get().is_none() {
            self.bench.store(bench.to_raw(), Ordering::Relaxed);
        }
        let bound = self.binding.set(Binding { name, place }).is_ok();
        // From now on producers may claim slots: until then the unopened
        // mark in the queue's `tail` fails every claim, which the failure
        // path reports as "never added".
        self.queue.open();
        bound
    }

    /// The consumer task's waker state on the single-threaded executor,
    /// which wakes the consumer directly once the executor registers it.
    pub(crate) fn task_waker(&self) -> &TaskWaker {
        &self.local_consumer
    }

    /// The owning model instance's name, once added to a bench.
    pub(crate) fn name(&self) -> Option<&str> {
        self.binding.get().map(|b| b.name.as_str())
    }

    /// The owning model instance's name and its bench, once added to a
    /// bench (cold: for the checks of a first send and of bench calls).
    pub(crate) fn binding(&self) -> Option<&Binding> {
        self.binding.get()
    }

    /// Starts loading what a save is about to read of this channel: the
    /// binding, and the bench beside `parked` (see `prefetch.rs`).
    #[cfg(feature = "save")]
    pub(crate) fn prefetch_binding(&self) {
        crate::prefetch::prefetch(&self.binding);
        crate::prefetch::prefetch(&self.bench);
    }

    /// The bench the owning model was added to, once added (cold, but for
    /// a save, which reads it for every pending event).
    pub(crate) fn bench(&self) -> Option<BenchId> {
        self.binding.get()?;
        BenchId::from_raw(self.bench.load(Ordering::Relaxed))
    }

    /// The bench the owning model was added to and its place there, once
    /// added (cold: a save reads it for every pending event, a topology or
    /// a checksum of the connections for every connection).
    pub(crate) fn placement(&self) -> Option<(BenchId, u32)> {
        let place = self.binding.get()?.place;
        Some((self.bench()?, place))
    }

    /// True once the owning model no longer exists: sends are no-ops
    /// (cold: a connection's check).
    pub(crate) fn is_closed(&self) -> bool {
        self.queue.is_closed()
    }

    /// The owning model instance's name, once added to a bench, for a
    /// report that keeps it (a cheap clone: no allocation when short).
    pub(crate) fn name_ref(&self) -> Option<&Name> {
        self.binding.get().map(|b| &b.name)
    }

    /// Pushes `make(arg)` if a slot is free.
    ///
    /// When the queue is full, puts the producer holding `ticket` in line
    /// with `cx`'s waker and returns `arg` untouched; the ticket keeps its
    /// place across polls. Without a ticket (a caller that polls again by
    /// itself; the bench does not wait at all, see `push_from_bench`),
    /// nothing is registered. When the model is gone or was never added, drops `arg`
    /// and says so. `make` returning `None` delivers nothing (filtered
    /// out).
    ///
    /// The fast path does not look at the ticket: a caller trying again
    /// after `Err` must call [`WaitTicket::leave_served`] once this returns
    /// `Ok` (the slow path leaves by itself). First attempts, which hold no
    /// place, skip that.
    ///
    /// Inlined into each connection: a send to a bound, open mailbox with
    /// room is the claim's stamp comparison (which also rejects a marked
    /// queue), a compare-and-swap, the write and the wake-up; every other
    /// case leaves through a cold call.
    #[inline]
    pub(crate) fn try_push_with<'a, A>(
        &'a self,
        arg: A,
        make: impl FnOnce(A) -> Option<T>,
        cx: &mut Context<'_>,
        ticket: Option<&mut WaitTicket<'a>>,
    ) -> Result<Pushed, A> {
        match self.queue.try_claim() {
            Some(claim) => {
                self.deliver(claim, make(arg));
                Ok(Pushed::Delivered)
            }
            None => self.try_push_slow(arg, make, cx, ticket),
        }
    }

    /// [`try_push_with`](Channel::try_push_with) when the quick claim did
    /// not succeed: the queue is full, closed, unopened or contended.
    #[cold]
    #[inline(never)]
    fn try_push_slow<'a, A>(
        &'a self,
        arg: A,
        make: impl FnOnce(A) -> Option<T>,
        cx: &mut Context<'_>,
        ticket: Option<&mut WaitTicket<'a>>,
    ) -> Result<Pushed, A> {
        let (arg, make) = match self.attempt(arg, make) {
            Ok(pushed) => {
                // Served: a slot, or an answer that needs none.
                if let Some(ticket) = ticket {
                    ticket.leave_served();
                }
                return Ok(pushed);
            }
            Err(back) => back,
        };
        // Full (or held, with no room left for models): wait in line, then
        // try once more, since the consumer may have freed room before it
        // saw us (without a ticket, just the one try).
        let Some(ticket) = ticket else {
            return Err(arg);
        };
        let local = self.local_consumer.get();
        self.producers.register(ticket, cx.waker(), local.is_some());
        match self.attempt(arg, make) {
            Ok(pushed) => {
                ticket.leave_served();
                Ok(pushed)
            }
            Err((arg, _)) => {
                if let Some(local) = local {
                    // From another thread, make sure the consumer sees us
                    // (see the `wait_list` module docs); on the executor's
                    // thread it will, in program order.
                    local.wake_if(|| false);
                }
                Err(arg)
            }
        }
    }

    /// Pushes `make(arg)` for the bench, which never waits: what does not
    /// fit in the queue (or would pass messages already in the overflow)
    /// goes to the overflow, which holds the queue. When the model is gone
    /// or was never added, drops `arg` and says so.
    ///
    /// Shaped like [`try_push_with`](Channel::try_push_with): the common
    /// case (room, no hold) inline, the rest out of line.
    #[inline]
    pub(crate) fn push_from_bench<A>(&self, arg: A, make: impl FnOnce(A) -> Option<T>) -> Pushed {
        match self.queue.try_claim() {
            Some(claim) => {
                self.deliver(claim, make(arg));
                Pushed::Delivered
            }
            None => self.push_from_bench_slow(arg, make),
        }
    }

    /// [`push_from_bench`](Channel::push_from_bench) when the quick claim
    /// did not succeed: full, held, closed, unopened or contended.
    #[cold]
    #[inline(never)]
    fn push_from_bench_slow<A>(&self, arg: A, make: impl FnOnce(A) -> Option<T>) -> Pushed {
        match self.queue.claim() {
            Ok(claim) => self.deliver(claim, make(arg)),
            Err(ClaimError::Full | ClaimError::Held) => {
                if let Some(message) = make(arg) {
                    self.overflow.push(message, || self.queue.hold());
                    self.wake_consumer();
                }
            }
            Err(other) => return Self::undeliverable(other),
        }
        Pushed::Delivered
    }

    /// What a push that cannot claim a slot for good reports.
    fn undeliverable(error: ClaimError) -> Pushed {
        match error {
            // Messages to a mailbox that was never added are a user error
            // (the queue stays unopened until `bind`).
            ClaimError::Unopened => Pushed::Unbound,
            // A model that no longer exists swallows messages.
            _ => Pushed::Closed,
        }
    }

    /// Publishes `message` in the claimed slot (`None`: a filtered value
    /// leaves a hole, which the consumer must still be woken to skip) and
    /// wakes the consumer.
    #[inline]
    fn deliver(&self, claim: Claim<'_, T>, message: Option<T>) {
        claim.write(message);
        self.wake_consumer();
    }

    /// Tells the consumer a message is in.
    ///
    /// Inlined into each connection's send, like the rest of the delivered
    /// path: left to the compiler, it was called out of line as soon as a
    /// connection's send grew a little (see `docs/benchmarks.md`,
    /// "Measurements behind code decisions").
    #[inline]
    fn wake_consumer(&self) {
        let Some(local) = self.local_consumer.get() else {
            // On the multi-threaded executor: the message is in, so either
            // this swap comes before the consumer's, whose last look then
            // sees the message, or it finds the consumer waiting.
            if self.parked.swap(false, Ordering::AcqRel) {
                self.consumer.wake();
            }
            return;
        };
        // On the executor's thread: only if the consumer parked and nobody
        // has queued it since. Elsewhere: always (see `wake_if`).
        local.wake_if(|| {
            let parked = self.parked.load(Ordering::Relaxed);
            if parked {
                self.parked.store(false, Ordering::Relaxed);
            }
            parked
        });
    }

    /// One try at pushing `make(arg)` for a model: a slot; room behind
    /// the bench's messages in the overflow of a held queue; or an answer
    /// that needs none (the model is gone, or was never added). Hands
    /// `arg` and `make` back when the queue is full, or held with no room
    /// left for models.
    fn attempt<A, F: FnOnce(A) -> Option<T>>(&self, arg: A, make: F) -> Result<Pushed, (A, F)> {
        match self.queue.claim() {
            Ok(claim) => {
                self.deliver(claim, make(arg));
                Ok(Pushed::Delivered)
            }
            Err(ClaimError::Full) => Err((arg, make)),
            Err(ClaimError::Held) => self.spill_from_model(arg, make),
            Err(other) => Ok(Self::undeliverable(other)),
        }
    }

    /// A model's push while the queue is held: behind the bench's messages
    /// in the overflow (the same-time rule), as long as the models'
    /// messages, in the queue and in the overflow, stay within the
    /// capacity (back-pressure keeps its meaning, and a model can still
    /// send to a mailbox it must itself drain).
    #[cold]
    fn spill_from_model<A, F: FnOnce(A) -> Option<T>>(
        &self,
        arg: A,
        make: F,
    ) -> Result<Pushed, (A, F)> {
        let capacity = self.queue.capacity();
        // Under the overflow's lock: the ring only drains while it holds
        // messages (the queue is held), so the room counted cannot shrink
        // before the push.
        self.overflow
            .push_from_model(arg, make, |models| self.queue.len() + models < capacity)?;
        self.wake_consumer();
        Ok(Pushed::Delivered)
    }

    /// Pops the oldest message, or registers the consumer's waker.
    ///
    /// A `Pending` ends the consumer task's poll: the executors read it as
    /// "idle until a message comes" (the multi-threaded one through the
    /// poll report, see `poll_report::note_parked`), which a task going on
    /// to wait on something else in the same poll would contradict. The
    /// model's loop is the only caller, and returns at once.
    ///
    /// # Safety
    ///
    /// Only the channel's single consumer (the owning [`Mailbox`]) may call
    /// this, never from two threads at once.
    ///
    /// [`Mailbox`]: crate::Mailbox
    #[inline]
    pub(crate) unsafe fn poll_pop(&self, cx: &mut Context<'_>) -> Poll<T> {
        // SAFETY: forwarded from the caller: we are the only consumer.
        if let Some(message) = unsafe { self.pop() } {
            return Poll::Ready(self.after_pop(message));
        }
        // SAFETY: as above.
        unsafe { self.poll_pop_empty(cx) }
    }

    /// Takes the oldest message; each hole skipped (a filtered message)
    /// frees a slot and wakes a waiting producer, as a taken message does
    /// in `after_pop`.
    ///
    /// # Safety
    ///
    /// As for `poll_pop`: only the single consumer may call this.
    #[inline(always)]
    unsafe fn pop(&self) -> Option<T> {
        // SAFETY: forwarded from the caller: we are the only consumer
        // (of the queue, and so the one who may pop after the hole).
        unsafe { self.queue.pop_or_at_hole(|| self.pop_after_hole()) }
    }

    /// [`pop`](Channel::pop) after a hole: wakes a producer for each hole
    /// skipped. Out of line, so that the pop inlined into every model's
    /// loop stays short (a hole callback inside its loop cost a ring hop
    /// 17 instructions).
    ///
    /// # Safety
    ///
    /// As for `poll_pop`: only the single consumer may call this.
    #[cold]
    #[inline(never)]
    unsafe fn pop_after_hole(&self) -> Option<T> {
        loop {
            // SAFETY: forwarded from the caller: we are the only consumer.
            match unsafe { self.queue.pop_one() } {
                Popped::Message(message) => return Some(message),
                Popped::Empty => return None,
                Popped::Hole => self.wake_producer(),
            }
        }
    }

    /// [`poll_pop`](Channel::poll_pop) when the queue looked empty: parks,
    /// or registers and looks again. Inlined too: a model that drains its
    /// mailbox one message per poll (a ring, pinball with few balls)
    /// comes here on every hop, and an out-of-line call cost those more
    /// instructions than it saved busy models (see `docs/benchmarks.md`,
    /// "Measurements behind code decisions").
    ///
    /// # Safety
    ///
    /// As for `poll_pop`: only the single consumer may call this.
    #[inline]
    unsafe fn poll_pop_empty(&self, cx: &mut Context<'_>) -> Poll<T> {
        if let Some(message) = self.pop_overflow() {
            return Poll::Ready(self.after_pop(message));
        }
        if self.local_consumer.get().is_some() {
            // On the single-threaded executor, the producers wake us
            // through the flag (see `wake_consumer`). The executor polls
            // us on its own thread, where the queue stays empty until a
            // push wakes us again: tell it we are idle, so that it does
            // not have to ask after the run.
            self.local_consumer.note_parked();
            return self.park_local();
        }
        // SAFETY: forwarded from the caller: we are the only consumer.
        unsafe { self.park_remote(cx) }
    }

    /// [`poll_pop_empty`](Channel::poll_pop_empty) on the multi-threaded
    /// executor. Out of line: inlined, its registration and swaps made the
    /// single-threaded executor's receive save more registers (+9
    /// instructions per ring hop).
    ///
    /// # Safety
    ///
    /// As for `poll_pop`: only the single consumer may call this.
    #[inline(never)]
    unsafe fn park_remote(&self, cx: &mut Context<'_>) -> Poll<T> {
        // Register, mark the wait, then look again: a push whose swap of
        // the mark comes after ours wakes the waker, one whose swap came
        // before is seen now (see `consumer_waker.rs`).
        // SAFETY: only the single consumer registers.
        unsafe { self.consumer.register(cx.waker()) };
        self.parked.swap(true, Ordering::AcqRel);
        // SAFETY: we are the only consumer.
        if let Some(message) = unsafe { self.pop() }.or_else(|| self.pop_overflow()) {
            // Not parked after all (`after_pop` clears the mark; a push that
            // found it set meanwhile only wakes us once more): a parking an
            // earlier look of this poll noted must not stand (cold path).
            poll_report::clear_parked();
            return Poll::Ready(self.after_pop(message));
        }
        // The executor lists a task whose poll ends otherwise as one that
        // may be stuck (see `poll_report`).
        poll_report::note_parked();
        // Every slot is free: enough producers must be on their way to
        // fill them (the mark is set already, before the last look).
        self.producers.top_up(|| self.queue.capacity());
        Poll::Pending
    }

    /// The oldest message of the overflow, once every message of the
    /// queue was read; releases the queue when it takes the last one.
    ///
    /// A look at the held mark in `tail` (on the cache line of `head`,
    /// which the pop just read) for a queue that is not held.
    #[inline(always)]
    fn pop_overflow(&self) -> Option<T> {
        if !self.queue.is_held() {
            return None;
        }
        self.pop_overflow_held()
    }

    /// [`pop_overflow`](Channel::pop_overflow) of a held queue.
    #[cold]
    #[inline(never)]
    fn pop_overflow_held(&self) -> Option<T> {
        // A slot claimed before the hold and not yet published is older
        // than the overflow: it goes first (its producer wakes us).
        if self.queue.len() != 0 {
            return None;
        }
        self.overflow.pop(|| self.queue.release())
    }

    /// Waits on the empty queue, on the single-threaded executor.
    #[inline(always)]
    fn park_local<M>(&self) -> Poll<M> {
        // Every slot is free: enough producers must be on their way to
        // fill them (this covers slots freed before a producer on another
        // thread could be seen; see the `wait_list` module docs).
        self.producers.top_up_local(|| self.queue.capacity());
        self.parked.store(true, Ordering::Release);
        Poll::Pending
    }

    /// Wakes the first producer waiting for a slot; the consumer just
    /// freed one.
    #[inline]
    fn wake_producer(&self) {
        if self.local_consumer.get().is_some() {
            self.producers.wake_one_local();
        } else {
            self.producers.wake_one();
        }
    }

    /// Bookkeeping after the consumer took `message`.
    #[inline]
    fn after_pop(&self, message: T) -> T {
        // Cleared only if set (by this poll's last look, or, on the
        // single-threaded executor, left set by a wake from another thread,
        // which does not clear it), and then with a swap: on the
        // multi-threaded executor the mark is handed between the consumer
        // and the producers by swaps, and a plain
        // store here could come after a producer's swap and before the
        // consumer's next one, which would then read this store instead of
        // the producer's and could miss its message (loom found it).
        if self.parked.load(Ordering::Relaxed) {
            self.parked.swap(false, Ordering::AcqRel);
        }
        // One slot freed: one waiting producer may claim it.
        self.wake_producer();
        message
    }

    /// Marks the consumer as waiting on its empty queue before its task
    /// was ever polled, as that first poll would have, for a task whose
    /// first act is to ask for a message: a push then wakes it. Returns
    /// false, marking nothing, if a message is in already (the first poll
    /// must take it).
    ///
    /// For a task of the single-threaded executor, registered before this
    /// call: a push from another thread after this look wakes it through
    /// the shared queue whatever the mark says.
    pub(crate) fn park_unpolled(&self) -> bool {
        if self.len() != 0 {
            return false;
        }
        self.parked.store(true, Ordering::Release);
        true
    }

    /// [`park_unpolled`](Channel::park_unpolled) for a consumer of the
    /// multi-threaded executor, whose `waker` a push wakes: registers it
    /// and marks the wait, then looks, as
    /// [`park_remote`](Channel::park_remote) does. True if the consumer
    /// waits, or a push's wake-up came after the mark (it queued the task
    /// already); false if a message came first, and nothing woke the
    /// task: the caller queues it.
    ///
    /// # Safety
    ///
    /// Called once, by the executor spawning the consumer's task, before
    /// the task was ever polled; the task reaches its first poll only
    /// through a queue push made after this call, or through a wake-up
    /// caused by the mark set here.
    pub(crate) unsafe fn park_unpolled_remote(&self, waker: &Waker) -> bool {
        // SAFETY: per the contract, no poll registered before, and every
        // poll's registration comes after this one: through the queue push
        // that follows this call, or through a push whose swap read the
        // mark set below, after this registration (the swaps are AcqRel).
        unsafe { self.consumer.register(waker) };
        self.parked.swap(true, Ordering::AcqRel);
        if self.len() == 0 {
            // Every slot is free, as in `park_remote`.
            self.producers.top_up(|| self.queue.capacity());
            return true;
        }
        // Take the mark back, unless a push took it and woke the task. (A
        // poll that the wake-up started meanwhile may have set it again;
        // taking that one only costs the task one more poll, since the
        // task's state lets one wake-up queue it.)
        !self.parked.swap(false, Ordering::AcqRel)
    }

    /// True when the consumer waits on an empty queue: the model is idle.
    pub(crate) fn is_idle(&self) -> bool {
        self.parked.load(Ordering::Acquire) && self.len() == 0
    }

    /// Number of queued messages, the overflow's included.
    pub(crate) fn len(&self) -> usize {
        self.queue.len() + self.overflow.len()
    }

    /// Closes the channel when the model goes away: queued messages are
    /// dropped (abandoning their reply slots), later sends are no-ops and
    /// waiting producers are released.
    ///
    /// # Safety
    ///
    /// As for [`poll_pop`](Channel::poll_pop): only the single consumer may
    /// call this.
    pub(crate) unsafe fn close(&self) {
        if self.queue.close() {
            // SAFETY: forwarded from the caller: we are the only consumer.
            unsafe { self.queue.drain_closed() };
            self.overflow.clear();
        }
        // The consumer's waker stays registered: a producer may be about
        // to wake it, which does nothing to a finished task.
        self.producers.wake_all();
    }
}

/// Reports an undeliverable message from inside a model to the running
/// simulation: the cold, out-of-line call of the send path. Sends from the
/// bench are checked before they start.
#[cold]
pub(crate) fn note_unbound_cold(model_type: &'static str, port: &'static str, kind: PortKind) {
    poll_report::note_misaddressed(Misaddressed {
        model_type,
        port,
        kind,
        foreign: None,
    });
}

#[cfg(all(test, causim_loom))]
mod loom_tests;

#[cfg(all(test, not(causim_loom)))]
mod tests;
