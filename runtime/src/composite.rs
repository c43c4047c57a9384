//! Subsystems: composite models, built from models and other composites.
//!
//! A real bench is a tree. A spacecraft holds a power subsystem, which
//! holds a solar array, a battery and a dozen loads. A [`Composite`] is one
//! node of that tree: a plain struct that owns its submodels (with their
//! mailboxes) and wires them to each other in its constructor, and that
//! shows the bench only the ports it chooses to expose. When the bench adds
//! it ([`SimInit::add_composite`]), its [`Composite::build`] adds each
//! submodel, and each nested composite, under the composite's path.
//!
//! # Paths
//!
//! Every model has a path: the names of the composites that hold it and
//! its own, joined by `/` (`spacecraft/power/battery`). A model added to
//! the bench directly has its name as its path. Names are unique per
//! level, so a path designates one model; errors, deadlock reports and
//! [`Context::name`](crate::Context::name) all use it.
//!
//! # Exposed ports cost nothing
//!
//! A composite is a build-time structure only. Nothing of it exists while
//! the bench runs: its exposed ports are its submodels' own ports, so an
//! output connected to an exposed input sends straight into the inner
//! model's mailbox, exactly as a flat bench would.
//!
//! - An **input or replier** is exposed as an [`InputRef`] or
//!   [`ReplierRef`] (the inner model's port together with its mailbox's
//!   address), which outputs, sources and requestors connect to with
//!   `connect_to`.
//! - An **output or requestor** is exposed by lending the inner model's
//!   own field (`&mut Output<T>`) through a method of the composite, so
//!   the bench connects it before the composite is added.
//!
//! Ports that are not exposed stay private fields of the composite, out
//! of the bench's reach: connecting to one is a compile error.
//!
//! [`InputRef`]: crate::ports::InputRef
//! [`ReplierRef`]: crate::ports::ReplierRef
//! [`SimInit::add_composite`]: crate::SimInit::add_composite

use crate::mailbox::Mailbox;
use crate::model::Model;
use crate::simulation::SimInit;

/// A subsystem: a group of models (and nested composites) that is added
/// to the bench as one, under one name.
///
/// Implement it on a struct that owns its submodels and their mailboxes;
/// `build` adds them. See the [module docs](self) and the guide's chapter
/// on composites.
///
/// ```
/// use causim::prelude::*;
/// use causim::ports::InputRef;
///
/// /// Doubles what it receives.
/// #[model]
/// pub struct Doubler {
///     pub out: Output<u32>,
/// }
///
/// #[model]
/// impl Doubler {
///     #[input]
///     pub async fn input(&mut self, x: u32) {
///         self.out.send(2 * x).await;
///     }
/// }
///
/// /// Multiplies by four: two doublers in a row.
/// pub struct Quadrupler {
///     first: Doubler,
///     first_mailbox: Mailbox<Doubler>,
///     second: Doubler,
///     second_mailbox: Mailbox<Doubler>,
/// }
///
/// impl Quadrupler {
///     pub fn new() -> Self {
///         let mut first = Doubler { out: Output::new() };
///         let second_mailbox = Mailbox::new();
///         first.out.connect(Doubler::ports().input, &second_mailbox);
///         Quadrupler {
///             first,
///             first_mailbox: Mailbox::new(),
///             second: Doubler { out: Output::new() },
///             second_mailbox,
///         }
///     }
///
///     /// Exposed input: the first doubler's.
///     pub fn input(&self) -> InputRef<Doubler, u32> {
///         InputRef::new(Doubler::ports().input, &self.first_mailbox)
///     }
///
///     /// Exposed output: the second doubler's.
///     pub fn out(&mut self) -> &mut Output<u32> {
///         &mut self.second.out
///     }
/// }
///
/// impl Composite for Quadrupler {
///     fn build(self, cx: &mut BuildContext<'_>) {
///         cx.add_model(self.first, self.first_mailbox, "first");
///         cx.add_model(self.second, self.second_mailbox, "second");
///     }
/// }
///
/// let mut quad = Quadrupler::new();
/// let results = EventQueue::new();
/// quad.out().connect_sink(&results);
/// let input = quad.input();
///
/// let mut simu = SimInit::new()
///     .add_composite(quad, "quad")
///     .init(SimTime::ZERO)?;
/// simu.process(input.event(3))?;
/// assert_eq!(results.take_all(), vec![12]);
/// assert_eq!(input.address().name(), Some("quad/first"));
/// # Ok::<(), causim::SimulationError>(())
/// ```
pub trait Composite: Sized + 'static {
    /// Adds the submodels and nested composites to the bench, through
    /// `cx`, under this composite's path.
    fn build(self, cx: &mut BuildContext<'_>);

    /// The composite's type name in reports and topology views; by
    /// default the Rust type without module paths (`PowerSubsystem`,
    /// `Bank<Battery>`).
    fn type_name() -> &'static str {
        crate::__private::short_type_name::<Self>()
    }
}

/// Where a [`Composite`] adds its parts: the bench being built, at the
/// composite's path.
pub struct BuildContext<'a> {
    /// The bench being built.
    bench: &'a mut SimInit,
    /// The composite's own path, which prefixes its parts' paths.
    path: String,
}

impl<'a> BuildContext<'a> {
    /// A context that adds parts under `path`.
    pub(crate) fn new(bench: &'a mut SimInit, path: String) -> Self {
        BuildContext { bench, path }
    }

    /// The path of the composite being built, e.g. `spacecraft/power`.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Adds a submodel named `name`, with the mailbox its connections
    /// point to; its path is this composite's path, `/`, then `name`.
    /// Like [`SimInit::add_model`], the model's outputs are connected
    /// before it is added.
    pub fn add_model<M: Model>(
        &mut self,
        model: M,
        mailbox: Mailbox<M>,
        name: impl AsRef<str>,
    ) -> &mut Self {
        self.bench
            .insert_model(Some(&self.path), model, mailbox, name.as_ref());
        self
    }

    /// Adds a nested composite named `name`, under this composite's path.
    pub fn add_composite<C: Composite>(
        &mut self,
        composite: C,
        name: impl AsRef<str>,
    ) -> &mut Self {
        self.bench
            .insert_composite(Some(&self.path), composite, name.as_ref());
        self
    }
}

impl std::fmt::Debug for BuildContext<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BuildContext")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}
