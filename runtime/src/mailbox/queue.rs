//! The lock-free bounded queue inside a mailbox.
//!
//! A Vyukov-style array queue: a fixed ring of slots, each with a *stamp*
//! that says whose turn the slot is. Producers claim a position with one
//! compare-and-swap on `tail`, write their message, then publish it by
//! moving the slot's stamp; the consumer reads a slot once its stamp says
//! "written" and hands it back to the next lap. A slot is never read and
//! written at the same time, so no lock is needed, and the storage is
//! allocated once, so a push never allocates.
//!
//! It is specialised for the mailbox's one consumer: `head` is written by
//! the consumer alone, so popping is a load, a read and two stores, with
//! no read-modify-write.
//!
//! It is also specialised for benches of millions of mostly idle models:
//! the ring is allocated by the first claim, not when the mailbox is made
//! (a model that is never sent anything costs no slots), and `head` and
//! `tail` share a cache line instead of being padded apart. The padding
//! would save a cache-line transfer only when a producer and the consumer
//! hammer one mailbox from two threads; it cost 128 bytes and 64-byte
//! alignment per mailbox, and every hop of the single-threaded executor
//! paid for the extra line it touched (see `docs/benchmarks.md`).
//!
//! Positions encode `(lap, index)` as `lap * one_lap + index`, with
//! `one_lap` a power of two above the capacity, so any capacity works (not
//! only powers of two). The geometry is kept in 8 bytes, the capacity and
//! the closed mark as `u32`, from which the index mask and `one_lap` are one
//! subtraction or shift away, as cheap as loading them: a mailbox per model
//! makes every byte count. The three bits just above the index bits of
//! `tail` are flags: *closed* (set once, when the consumer goes away),
//! *unopened* (set from the start until [`ArrayQueue::open`]; the mailbox
//! opens its queue when its model is added to a bench) and *held* (set
//! while the mailbox's overflow holds messages the bench delivered beyond
//! the capacity, see `mailbox/overflow.rs`). While any is set every claim
//! fails, and the producer's hot path pays nothing for them: no slot's
//! stamp ever carries a mark, so the comparison of the slot's stamp with
//! the marked `tail` fails as if the queue were full. A send to a mailbox
//! never added to a bench, one to a model that is gone, one to a held
//! mailbox and one to a full mailbox are told apart only on the failure
//! path.
//!
//! The claim is split the same way: [`ArrayQueue::claim`] is a short
//! inlined attempt (one load of `tail`, one of the ring pointer, one of the
//! slot's stamp, one compare-and-swap) that falls back to an out-of-line
//! loop only when the queue is flagged, unallocated, full, or another
//! producer won the race.
//!
//! A claim is published even when it carries no message (the producer's
//! constructor filtered the value out, or panicked): the consumer skips such
//! *holes*. Without that, a claimed slot that is never written would hide
//! every later message.

use std::mem::MaybeUninit;
use std::ptr;

use crate::sync::atomic::{fence, AtomicPtr, AtomicUsize, Ordering};
use crate::sync::cell::UnsafeCell;

/// What [`ArrayQueue::pop_one`] found at the head of the queue.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Popped<T> {
    /// The oldest message, taken.
    Message(T),
    /// A filtered message's hole, skipped: its slot is free.
    Hole,
    /// Nothing published yet.
    Empty,
}

/// Why a slot could not be claimed.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum ClaimError {
    /// Every slot holds a message (or is being written).
    Full,
    /// The consumer is gone.
    Closed,
    /// The queue was never [opened](ArrayQueue::open).
    Unopened,
    /// The queue is [held](ArrayQueue::hold): messages wait in the
    /// mailbox's overflow, and every other producer waits as if it were
    /// full.
    Held,
}

/// The queue's geometry as plain integers, copied out of the queue once
/// per operation.
///
/// A position's index is below `capacity`, and `index + 1` at most
/// `capacity`, below `mark_bit`: no position or stamp (`pos`, `pos + 1`,
/// or a position of the next lap) ever has any of the three mark bits
/// set.
#[derive(Clone, Copy)]
struct Geometry {
    /// The number of slots.
    capacity: usize,
    /// The closed mark (see [`ArrayQueue::mark_bit`]).
    mark_bit: usize,
}

impl Geometry {
    /// The index bits of a position.
    #[inline(always)]
    fn index_mask(self) -> usize {
        self.mark_bit - 1
    }

    /// The index of position `pos` (marks or not) in the ring.
    #[inline(always)]
    fn index(self, pos: usize) -> usize {
        pos & self.index_mask()
    }

    /// The distance between the same index in two consecutive laps: the
    /// bit above the three marks.
    #[inline(always)]
    fn one_lap(self) -> usize {
        self.mark_bit << 3
    }

    /// The position after `pos`, an unmarked position whose index is
    /// `index`.
    #[inline(always)]
    fn next(self, pos: usize, index: usize) -> usize {
        if index + 1 < self.capacity {
            pos + 1
        } else {
            // Once a lap: a branch costs the common case less than a
            // conditional move that computes both.
            std::hint::cold_path();
            // Index 0 of the next lap.
            (pos - index).wrapping_add(self.one_lap())
        }
    }
}

/// One slot of the ring.
struct Slot<T> {
    /// The position this slot is free for (`pos`), or written at
    /// (`pos + 1`).
    stamp: AtomicUsize,
    /// The message; `None` is a hole. Initialised iff the stamp says
    /// "written".
    value: UnsafeCell<MaybeUninit<Option<T>>>,
}

/// The slot at the queue's `head` whose stamp says "written": its value
/// (a message, or `None` for a hole) is initialised and, until
/// [`ArrayQueue::hand_back`], belongs to the consumer alone.
struct PublishedHead<'a, T> {
    /// The slot.
    slot: &'a Slot<T>,
    /// The position of `head` it was found at.
    position: usize,
    /// The slot's index in the ring.
    index: usize,
    /// The queue's geometry, as read for the look.
    geometry: Geometry,
}

/// The largest capacity the queue's geometry can describe, `2^31 - 1`.
///
/// The closed mark, the power of two above the capacity, is stored as a
/// `u32`. [`MAX_RING_BYTES`] bounds every real queue well below it.
pub(crate) const MAX_CAPACITY: usize = (1 << 31) - 1;

/// The largest ring a queue allocates, in bytes (64 MiB): larger capacities
/// are clamped to what fits.
///
/// The ring is allocated in one piece, and every slot written, by the
/// first message: a capacity meant as "no limit" (`usize::MAX`) used to ask
/// for a ring of 2^31 - 1 slots, tens of gigabytes, and aborted the
/// process on the first send. 64 MiB holds millions of small messages
/// (4 Mi slots of 16 bytes), which is "no limit" for a bench, and can be
/// allocated on any machine that runs one.
pub(crate) const MAX_RING_BYTES: usize = 64 << 20;

/// A bounded multi-producer, single-consumer queue.
///
/// `repr(C)`, in the order a claim and a pop read it: the positions, the
/// ring, then the geometry, all in 32 bytes.
#[repr(C)]
pub(crate) struct ArrayQueue<T> {
    /// Next position to claim, plus the closed and unopened marks.
    tail: AtomicUsize,
    /// Next position to read; written by the consumer only.
    head: AtomicUsize,
    /// The first slot of the ring (a `Box<[Slot<T>]>` of `capacity`
    /// slots), or null until the first claim allocates it.
    slots: AtomicPtr<Slot<T>>,
    /// The number of slots, `1..=MAX_CAPACITY`.
    capacity: u32,
    /// The closed mark in `tail`, the smallest power of two above
    /// `capacity` (see [`mark_bit`](Self::mark_bit)).
    mark_bit: u32,
}

// SAFETY: the queue hands each `T` from one thread to another exactly once
// (a slot's value is written by the one producer that claimed it and read by
// the consumer after the stamp publishes it), so it is `Send`/`Sync` when
// `T` is `Send`.
unsafe impl<T: Send> Send for ArrayQueue<T> {}
// SAFETY: as above: shared access never gives two threads the same `T`.
unsafe impl<T: Send> Sync for ArrayQueue<T> {}

impl<T> ArrayQueue<T> {
    /// An unopened queue of `capacity` slots, clamped to
    /// `1..=`[`max_capacity`](ArrayQueue::max_capacity): claims fail with
    /// [`ClaimError::Unopened`] until [`open`](ArrayQueue::open).
    pub(crate) fn new(capacity: usize) -> Self {
        Self::with_slots(capacity.clamp(1, Self::max_capacity()))
    }

    /// The largest capacity of a queue of `T`: as many slots as
    /// [`MAX_RING_BYTES`] holds, at most [`MAX_CAPACITY`].
    pub(crate) const fn max_capacity() -> usize {
        let by_size = MAX_RING_BYTES / std::mem::size_of::<Slot<T>>();
        if by_size < MAX_CAPACITY {
            by_size
        } else {
            MAX_CAPACITY
        }
    }

    /// An unopened queue of `capacity` slots, clamped to what the geometry
    /// describes (`1..=MAX_CAPACITY`) but not to [`MAX_RING_BYTES`].
    fn with_slots(capacity: usize) -> Self {
        let capacity = capacity.clamp(1, MAX_CAPACITY) as u32;
        // At most 2^31: `MAX_CAPACITY` is one less.
        let mark_bit = (capacity + 1).next_power_of_two();
        // Position 0 of lap 0, with the unopened mark (see `unopened_bit`).
        let unopened = (mark_bit as usize) << 1;
        ArrayQueue {
            tail: AtomicUsize::new(unopened),
            head: AtomicUsize::new(0),
            slots: AtomicPtr::new(ptr::null_mut()),
            capacity,
            mark_bit,
        }
    }

    /// The closed mark in `tail`; also one more than the largest index.
    /// The bit above it is the unopened mark.
    #[inline(always)]
    fn mark_bit(&self) -> usize {
        self.mark_bit as usize
    }

    /// The distance between the same index in two consecutive laps.
    #[inline(always)]
    fn one_lap(&self) -> usize {
        self.geometry().one_lap()
    }

    /// The index of position `pos` in the ring.
    #[inline(always)]
    fn index(&self, pos: usize) -> usize {
        self.geometry().index(pos)
    }

    /// Lets producers claim slots (unless the queue is closed already).
    pub(crate) fn open(&self) {
        self.tail.fetch_and(!self.unopened_bit(), Ordering::AcqRel);
    }

    /// The unopened mark in `tail`.
    #[inline]
    fn unopened_bit(&self) -> usize {
        self.mark_bit() << 1
    }

    /// The held mark in `tail`.
    #[inline]
    fn held_bit(&self) -> usize {
        self.mark_bit() << 2
    }

    /// The marks of `tail`: closed, unopened and held.
    #[inline]
    fn flag_bits(&self) -> usize {
        self.mark_bit() | self.unopened_bit() | self.held_bit()
    }

    /// Turns every claim away with [`ClaimError::Held`] until
    /// [`release`](ArrayQueue::release): the mailbox's overflow holds
    /// messages that must be read before any later one.
    pub(crate) fn hold(&self) {
        self.tail.fetch_or(self.held_bit(), Ordering::SeqCst);
    }

    /// Lets producers claim slots again after [`hold`](ArrayQueue::hold).
    pub(crate) fn release(&self) {
        self.tail.fetch_and(!self.held_bit(), Ordering::SeqCst);
    }

    /// True while the queue is [held](ArrayQueue::hold).
    #[inline(always)]
    pub(crate) fn is_held(&self) -> bool {
        self.tail.load(Ordering::Acquire) & self.held_bit() != 0
    }

    /// `tail` without its marks: a position.
    #[inline]
    fn position(&self, tail: usize) -> usize {
        tail & !self.flag_bits()
    }

    /// The number of slots.
    pub(crate) fn capacity(&self) -> usize {
        self.capacity as usize
    }

    /// The geometry, read once: the hot paths take it before their
    /// Acquire loads, past which the compiler would load the queue's
    /// constant fields again.
    #[inline(always)]
    fn geometry(&self) -> Geometry {
        Geometry {
            capacity: self.capacity(),
            mark_bit: self.mark_bit(),
        }
    }

    /// The first slot of the ring, if allocated.
    #[inline(always)]
    fn first_slot(&self) -> Option<ptr::NonNull<Slot<T>>> {
        ptr::NonNull::new(self.slots.load(Ordering::Acquire))
    }

    /// The slot at `index` of the ring that starts at `first`, without a
    /// bounds check.
    ///
    /// # Safety
    ///
    /// `first` comes from [`first_slot`](Self::first_slot) and `index` is
    /// the index of a position (`tail`'s, marks or not, or `head`'s), which
    /// is below the capacity: positions only move by [`Geometry::next`].
    #[inline(always)]
    unsafe fn slot_at(&self, first: ptr::NonNull<Slot<T>>, index: usize) -> &Slot<T> {
        debug_assert!(index < self.capacity());
        // SAFETY: `first` is the installed ring of `capacity` slots (see
        // `ring`), `index` is in bounds (the caller's contract), and the
        // ring lives as long as `&self`.
        unsafe { first.add(index).as_ref() }
    }

    /// The ring, if allocated.
    #[inline(always)]
    fn ring(&self) -> Option<&[Slot<T>]> {
        let first = self.slots.load(Ordering::Acquire);
        if first.is_null() {
            return None;
        }
        // SAFETY: a non-null pointer was installed by `allocate_ring` from
        // a leaked `Box<[Slot<T>]>` of `capacity` slots (the Acquire load
        // pairs with its Release exchange, so the slots' initialisation is
        // visible), and it is only freed in `drop`, which has `&mut self`.
        Some(unsafe { std::slice::from_raw_parts(first, self.capacity()) })
    }

    /// The ring, allocated on first use.
    #[inline]
    fn ring_or_allocate(&self) -> &[Slot<T>] {
        match self.ring() {
            Some(ring) => ring,
            None => self.allocate_ring(),
        }
    }

    /// Allocates the ring and installs it, unless another producer did
    /// first; returns the installed one.
    #[cold]
    fn allocate_ring(&self) -> &[Slot<T>] {
        let capacity = self.capacity();
        let fresh: Box<[Slot<T>]> = (0..capacity)
            .map(|i| Slot {
                stamp: AtomicUsize::new(i),
                value: UnsafeCell::new(MaybeUninit::uninit()),
            })
            .collect();
        let fresh = Box::into_raw(fresh).cast::<Slot<T>>();
        let installed = match self.slots.compare_exchange(
            ptr::null_mut(),
            fresh,
            Ordering::AcqRel,
            Ordering::Acquire,
        ) {
            Ok(_) => fresh,
            Err(theirs) => {
                // SAFETY: `fresh` came from `Box::into_raw` just above and
                // was never shared: the exchange failed.
                drop(unsafe { Box::from_raw(ptr::slice_from_raw_parts_mut(fresh, capacity)) });
                theirs
            }
        };
        // SAFETY: `installed` is the ring in `slots` (ours or the one that
        // won), a live `Box<[Slot<T>]>` of `capacity` slots freed only by
        // `drop`, which has `&mut self`.
        unsafe { std::slice::from_raw_parts(installed, capacity) }
    }

    /// The position after `pos`, an unmarked position (the slow paths
    /// call this only after testing the marks).
    #[inline]
    fn next(&self, pos: usize) -> usize {
        let geometry = self.geometry();
        geometry.next(pos, geometry.index(pos))
    }

    /// Claims the next free slot; the message goes in with
    /// [`Claim::write`].
    #[inline]
    pub(crate) fn claim(&self) -> Result<Claim<'_, T>, ClaimError> {
        match self.try_claim() {
            Some(claim) => Ok(claim),
            None => self.claim_slow(),
        }
    }

    /// One attempt at the common case of [`claim`](ArrayQueue::claim):
    /// open, allocated, room, and no other producer racing. `None` says
    /// only that this attempt did not succeed; `claim_slow` tells why.
    ///
    /// Inlined into every producer, so it is kept to one load of `tail`,
    /// one of the ring pointer, one of the slot's stamp and the
    /// compare-and-swap.
    #[inline]
    pub(crate) fn try_claim(&self) -> Option<Claim<'_, T>> {
        let geometry = self.geometry();
        let tail = self.tail.load(Ordering::Relaxed);
        let index = geometry.index(tail);
        let first = self.first_slot()?;
        // SAFETY: `first` is the ring and `index` the index of `tail`.
        let slot = unsafe { self.slot_at(first, index) };
        // Also the test of the marks (closed, unopened): a stamp never
        // carries them (see `Geometry`), so a marked `tail` never matches.
        if slot.stamp.load(Ordering::Acquire) != tail {
            return None; // full, or a producer of the last lap is writing
        }
        let next = geometry.next(tail, index);
        self.tail
            .compare_exchange_weak(tail, next, Ordering::SeqCst, Ordering::Relaxed)
            .ok()?;
        Some(Claim { slot, pos: tail })
    }

    /// [`claim`](ArrayQueue::claim) when [`try_claim`](ArrayQueue::try_claim)
    /// did not succeed: tells the failures apart, allocates the ring, and
    /// retries while other producers move `tail`.
    #[cold]
    #[inline(never)]
    fn claim_slow(&self) -> Result<Claim<'_, T>, ClaimError> {
        let mut tail = self.tail.load(Ordering::Relaxed);
        if tail & self.unopened_bit() != 0 {
            // Checked first: a mailbox dropped before it was ever added
            // is still reported as never added.
            return Err(ClaimError::Unopened);
        }
        if tail & self.mark_bit() != 0 {
            // Checked before the ring: a closed queue never allocates.
            return Err(ClaimError::Closed);
        }
        let ring = self.ring_or_allocate();
        loop {
            if tail & self.mark_bit() != 0 {
                return Err(ClaimError::Closed);
            }
            if tail & self.held_bit() != 0 {
                return Err(ClaimError::Held);
            }
            let slot = &ring[self.index(tail)];
            let stamp = slot.stamp.load(Ordering::Acquire);
            if stamp == tail {
                // The slot is free for this position: try to take it.
                match self.tail.compare_exchange_weak(
                    tail,
                    self.next(tail),
                    Ordering::SeqCst,
                    Ordering::Relaxed,
                ) {
                    Ok(_) => return Ok(Claim { slot, pos: tail }),
                    Err(current) => tail = current,
                }
            } else {
                // The slot is still in use: full, unless `tail` moved on.
                fence(Ordering::SeqCst);
                let head = self.head.load(Ordering::Acquire);
                if head.wrapping_add(self.one_lap()) == tail {
                    return Err(ClaimError::Full);
                }
                let current = self.tail.load(Ordering::Relaxed);
                if current == tail {
                    // A producer of the previous lap is still writing the
                    // slot the consumer waits on: as good as full.
                    return Err(ClaimError::Full);
                }
                tail = current;
            }
        }
    }

    /// Takes the oldest message, skipping holes; `None` if none is
    /// published yet.
    ///
    /// # Safety
    ///
    /// Only one thread at a time may pop: the queue's single consumer.
    #[inline]
    pub(crate) unsafe fn pop(&self) -> Option<T> {
        loop {
            // SAFETY: forwarded from the caller.
            match unsafe { self.pop_one() } {
                Popped::Message(message) => return Some(message),
                Popped::Hole => {}
                Popped::Empty => return None,
            }
        }
    }

    /// Takes the oldest message; on a hole, leaves it and returns what
    /// `at_hole` returns instead (the channel's cold path, which pops
    /// hole by hole, telling a waiting producer of each slot freed).
    /// `None` if nothing is published yet.
    ///
    /// The hole is told by a look at the slot before it is read, so the
    /// message is read once, as the value returned: a three-way result
    /// translated into an `Option` here made the compiler copy the message
    /// through the stack in pieces (a byte and two misaligned words) and
    /// read it back whole, ~10 instructions and a store-forwarding stall
    /// per message (see `docs/benchmarks.md`).
    ///
    /// # Safety
    ///
    /// As for `pop`: only the queue's single consumer may call this.
    #[inline(always)]
    pub(crate) unsafe fn pop_or_at_hole(&self, at_hole: impl FnOnce() -> Option<T>) -> Option<T> {
        let head = self.published_head()?;
        // SAFETY: the slot is published (see `PublishedHead`) and only
        // looked at: it stays the consumer's until handed back.
        let is_hole = head
            .slot
            .value
            .with(|p| unsafe { (*p).assume_init_ref() }.is_none());
        if is_hole {
            return at_hole();
        }
        // SAFETY: as above; as the only consumer we read it once, then hand
        // the slot back.
        let value = head.slot.value.with(|p| unsafe { (*p).assume_init_read() });
        self.hand_back(head);
        value
    }

    /// Takes the oldest slot: a message, a hole (each frees a slot, as a
    /// taken message does, which the channel tells a waiting producer), or
    /// nothing published yet. No loop over holes: the caller's loop, on
    /// its cold path, keeps the common pop short.
    ///
    /// # Safety
    ///
    /// As for `pop`: only the queue's single consumer may call this.
    #[inline]
    pub(crate) unsafe fn pop_one(&self) -> Popped<T> {
        let Some(head) = self.published_head() else {
            return Popped::Empty;
        };
        // SAFETY: the slot is published (see `PublishedHead`); as the only
        // consumer we read it once, then hand the slot back.
        let value = head.slot.value.with(|p| unsafe { (*p).assume_init_read() });
        self.hand_back(head);
        match value {
            Some(message) => Popped::Message(message),
            None => Popped::Hole,
        }
    }

    /// The slot at `head`, if its message (or hole) is published there.
    /// Only the single consumer calls this (through the pops).
    #[inline(always)]
    fn published_head(&self) -> Option<PublishedHead<'_, T>> {
        let geometry = self.geometry();
        // No ring yet: nothing was ever claimed. Once installed, the ring
        // stays for the queue's life.
        let first = self.first_slot()?;
        let position = self.head.load(Ordering::Relaxed);
        let index = geometry.index(position);
        // SAFETY: `first` is the ring and `index` the index of `head`.
        let slot = unsafe { self.slot_at(first, index) };
        // The Acquire load synchronises with the producer's Release store
        // of the stamp, after its write of the value.
        if slot.stamp.load(Ordering::Acquire) != position.wrapping_add(1) {
            return None; // claimed, not yet published
        }
        Some(PublishedHead {
            slot,
            position,
            index,
            geometry,
        })
    }

    /// Hands the slot at `head`, whose content was read, back to the
    /// producers (for the next lap) and moves `head` on.
    #[inline(always)]
    fn hand_back(&self, head: PublishedHead<'_, T>) {
        let geometry = head.geometry;
        let next = geometry.next(head.position, head.index);
        let next_lap = head.position.wrapping_add(geometry.one_lap());
        head.slot.stamp.store(next_lap, Ordering::Release);
        self.head.store(next, Ordering::Release);
    }

    /// Marks the queue closed: every later claim fails. True if it was
    /// open.
    pub(crate) fn close(&self) -> bool {
        let mark_bit = self.mark_bit();
        self.tail.fetch_or(mark_bit, Ordering::SeqCst) & mark_bit == 0
    }

    /// True once the queue was closed (cold: a connection's check).
    pub(crate) fn is_closed(&self) -> bool {
        self.tail.load(Ordering::Acquire) & self.mark_bit() != 0
    }

    /// Drops every message of a closed queue, waiting for producers that
    /// claimed a slot before the close to publish it.
    ///
    /// # Safety
    ///
    /// As for [`pop`](ArrayQueue::pop): only the consumer may call this.
    pub(crate) unsafe fn drain_closed(&self) {
        let tail = self.position(self.tail.load(Ordering::SeqCst));
        loop {
            // SAFETY: forwarded from the caller: we are the only consumer.
            while unsafe { self.pop() }.is_some() {}
            if self.head.load(Ordering::Relaxed) == tail {
                return;
            }
            // A producer claimed a slot before the close and is writing it.
            crate::sync::thread::yield_now();
        }
    }

    /// Number of claimed slots not yet popped (holes included).
    pub(crate) fn len(&self) -> usize {
        loop {
            let tail = self.position(self.tail.load(Ordering::SeqCst));
            let head = self.head.load(Ordering::SeqCst);
            if self.position(self.tail.load(Ordering::SeqCst)) != tail {
                continue;
            }
            let hix = self.index(head);
            let tix = self.index(tail);
            return if hix < tix {
                tix - hix
            } else if hix > tix {
                self.capacity() - hix + tix
            } else if tail == head {
                0
            } else {
                self.capacity()
            };
        }
    }
}

impl<T> Drop for ArrayQueue<T> {
    fn drop(&mut self) {
        // `&mut self`: no producer or consumer is left; drop what is
        // published.
        let Some(ring) = self.ring() else {
            return; // never claimed
        };
        let tail = self.position(self.tail.load(Ordering::Relaxed));
        let mut pos = self.head.load(Ordering::Relaxed);
        while pos != tail {
            let slot = &ring[self.index(pos)];
            if slot.stamp.load(Ordering::Relaxed) == pos.wrapping_add(1) {
                // SAFETY: the stamp says the slot is initialised, and it is
                // dropped once: we move past it right after.
                slot.value.with_mut(|p| unsafe { (*p).assume_init_drop() });
            }
            pos = self.next(pos);
        }
        let first = self.slots.load(Ordering::Relaxed);
        // SAFETY: `first` is the installed ring (non-null, see `ring`), a
        // leaked `Box<[Slot<T>]>` of `capacity` slots; `&mut self` means
        // nobody else can reach it any more, and its values were dropped
        // above.
        drop(unsafe { Box::from_raw(ptr::slice_from_raw_parts_mut(first, self.capacity())) });
    }
}

/// A claimed slot, to be filled exactly once.
///
/// Dropping it unfilled (the producer's constructor panicked) publishes a
/// hole, so the consumer is never stuck behind it.
pub(crate) struct Claim<'a, T> {
    /// The claimed slot.
    slot: &'a Slot<T>,
    /// The position it was claimed for.
    pos: usize,
}

impl<T> Claim<'_, T> {
    /// Publishes `value` (`None`: a hole that the consumer skips).
    pub(crate) fn write(self, value: Option<T>) {
        self.publish(value);
        std::mem::forget(self);
    }

    /// Writes the slot and moves its stamp to "written".
    fn publish(&self, value: Option<T>) {
        // SAFETY: this claim won the compare-and-swap for `pos`, so no other
        // producer writes the slot, and the consumer does not read it until
        // the stamp below says it is written.
        self.slot.value.with_mut(|p| unsafe { (*p).write(value) });
        self.slot
            .stamp
            .store(self.pos.wrapping_add(1), Ordering::Release);
    }
}

impl<T> Drop for Claim<'_, T> {
    fn drop(&mut self) {
        self.publish(None);
    }
}

#[cfg(all(test, causim_loom))]
mod loom_tests;

#[cfg(all(test, not(causim_loom)))]
mod tests;
