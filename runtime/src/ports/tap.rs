//! Taps: code that sees every value an output sends, without a connection.
//!
//! A sink is a connection: the value is cloned for it (or it takes the
//! connection's place as the last one) and the output takes its
//! many-connection path. A recorder that keeps a sample of every value an
//! output sends needs less: a look at the value, by reference, on the
//! sending model's thread. A [`Tap`] is that look. It is owned by the
//! output, so it is called with `&mut self` (its state needs no lock: the
//! output is borrowed mutably by the send), and it is not a connection:
//! the output's connections, their order and the topology are those it
//! had without it.
//!
//! A tap is the narrow interface on which `causim-record`'s lock-free
//! recorders are built; the kernel knows nothing of what it keeps.

/// Sees every value an [`Output`](crate::Output) sends, by reference, when
/// the model calls [`send`](crate::Output::send).
///
/// Called on the sending model's thread, within its time step, before the
/// value is delivered to any connection. It must be quick and must not
/// block: the sender waits for it. A send future dropped before it was
/// awaited (which the compiler warns of) has still been seen.
///
/// ```
/// use causim::prelude::*;
/// use causim::Tap;
///
/// /// Counts the values sent and keeps the largest.
/// #[derive(Default)]
/// struct Largest {
///     count: u64,
///     largest: Option<f64>,
/// }
///
/// impl Tap<f64> for Largest {
///     fn observe(&mut self, value: &f64) {
///         self.count += 1;
///         self.largest = Some(self.largest.map_or(*value, |l| l.max(*value)));
///     }
/// }
///
/// let mut out = Output::<f64>::new();
/// out.tap(Largest::default());
/// assert!(!out.is_connected(), "a tap is not a connection");
/// ```
pub trait Tap<T>: Send + Sync + 'static {
    /// Sees `value`, which the output is sending.
    fn observe(&mut self, value: &T);
}

/// Two taps of one output, called in the order they were added.
pub(crate) struct BothTaps<T> {
    /// The earlier taps.
    first: Box<dyn Tap<T>>,
    /// The one added last.
    second: Box<dyn Tap<T>>,
}

impl<T: 'static> BothTaps<T> {
    /// `first`, then `second`.
    pub(crate) fn new(first: Box<dyn Tap<T>>, second: Box<dyn Tap<T>>) -> Self {
        BothTaps { first, second }
    }
}

impl<T: 'static> Tap<T> for BothTaps<T> {
    fn observe(&mut self, value: &T) {
        self.first.observe(value);
        self.second.observe(value);
    }
}
