//! Models with type and const parameters.
#![deny(warnings)]

use causim::prelude::*;

/// Collects `N` items, then sends them as one batch.
#[model]
pub struct Batcher<T: Clone + Send + 'static, const N: usize> {
    pub batches: Output<Vec<T>>,
    items: Vec<T>,
}

#[model]
impl<T: Clone + Send + 'static, const N: usize> Batcher<T, N> {
    #[input]
    pub async fn push(&mut self, item: T) {
        self.items.push(item);
        if self.items.len() == N {
            let batch = std::mem::take(&mut self.items);
            self.batches.send(batch).await;
        }
    }

    #[replier]
    pub fn pending(&mut self) -> usize {
        self.items.len()
    }
}

/// A generic model with no port at all.
#[model]
pub struct Inert<T: Send + 'static> {
    pub value: T,
}

#[model]
impl<T: Send + 'static> Inert<T> {}

/// A generic model with a where clause, whose inputs do not use `T`.
#[model]
pub struct Tagged<T>
where
    T: Send + 'static,
{
    tag: T,
    count: u32,
}

#[model]
impl<T> Tagged<T>
where
    T: Send + Sync + 'static,
{
    #[input]
    pub fn bump(&mut self) {
        self.count += 1;
    }

    #[replier]
    pub fn count(&mut self) -> u32 {
        let _ = &self.tag;
        self.count
    }
}

/// A model with a const parameter only, in its payload types.
#[model]
pub struct Window<const N: usize> {
    pub full: Output<[f64; N]>,
}

#[model]
impl<const N: usize> Window<N> {
    #[input]
    pub fn push(&mut self, _samples: [f64; N]) {}
}

fn main() -> Result<(), SimulationError> {
    let mut batcher = Batcher::<String, 2> {
        batches: Output::new(),
        items: Vec::new(),
    };
    let batches = EventQueue::new();
    batcher.batches.connect_sink(&batches);
    let mailbox = Mailbox::new();
    let address = mailbox.address();
    let tagged_mailbox = Mailbox::new();
    let tagged = tagged_mailbox.address();
    let mut simu = SimInit::new()
        .add_model(batcher, mailbox, "batcher")
        .add_model(Inert { value: 1u8 }, Mailbox::new(), "inert")
        .add_model(Tagged { tag: "t", count: 0 }, tagged_mailbox, "tagged")
        .init(SimTime::ZERO)?;
    let ports = Batcher::<String, 2>::ports();
    for item in ["a", "b", "c"] {
        simu.process_event(ports.push, item.to_owned(), &address)?;
    }
    assert_eq!(batches.take_all(), vec![vec!["a".to_owned(), "b".to_owned()]]);
    assert_eq!(simu.process_query(ports.pending, (), &address)?, 1);
    simu.process_event(Tagged::<&str>::ports().bump, (), &tagged)?;
    assert_eq!(simu.process_query(Tagged::<&str>::ports().count, (), &tagged)?, 1);
    // Metadata names the concrete instance and its payloads, not `T`.
    let meta = Batcher::<u8, 3>::metadata();
    assert_eq!(meta.type_name, "Batcher<u8, 3>");
    assert_eq!(meta.port("push").unwrap().payload, "u8");
    assert_eq!(meta.port("pending").unwrap().reply, Some("usize"));
    assert_eq!(meta.port("batches").unwrap().to_string(), "batches: Output<Vec<u8>>");
    assert_eq!(Batcher::<String, 2>::metadata().type_name, "Batcher<String, 2>");
    assert_eq!(Tagged::<&str>::metadata().type_name, "Tagged<&str>");
    let window = Window::<4>::metadata();
    assert_eq!(window.type_name, "Window<4>");
    assert_eq!(window.port("push").unwrap().payload, "[f64; 4]");
    assert_eq!(window.port("full").unwrap().payload, "[f64; 4]");
    assert_eq!(Inert::<u8>::metadata().inputs.len(), 0);
    println!("{:?}", Batcher::<u8, 3>::ports());
    Ok(())
}
