//! Every supported signature of inputs, repliers and init hooks.
#![deny(warnings)]

use causim::prelude::*;

#[model]
pub struct Everything {
    pub log: Output<String>,
}

#[model]
impl Everything {
    #[init]
    async fn start(&mut self, cx: &mut Context<Self>) {
        self.log.send(format!("init {}", cx.name())).await;
    }

    // Inputs: sync or async, zero or one payload, with or without context.
    #[input]
    pub fn sync_none(&mut self) {}
    #[input]
    pub fn sync_payload(&mut self, _x: u32) {}
    #[input]
    pub fn sync_context(&mut self, _cx: &mut Context<Self>) {}
    #[input]
    pub fn sync_payload_context(&mut self, _x: u32, _cx: &mut Context<Self>) {}
    #[input]
    pub async fn async_none(&mut self) {}
    #[input]
    pub async fn async_payload(&mut self, x: u32) {
        self.log.send(format!("async_payload {x}")).await;
    }
    #[input]
    pub async fn async_context(&mut self, cx: &mut Context<Self>) {
        self.log.send(format!("async_context at {}", cx.time())).await;
    }
    #[input]
    pub async fn async_payload_context(&mut self, x: u32, cx: &mut Context<Self>) {
        self.log.send(format!("{x} at {}", cx.time())).await;
    }
    // Patterns and explicit unit payloads.
    #[input]
    pub fn pattern(&mut self, (_a, _b): (u8, String)) {}
    #[input]
    pub fn unit(&mut self, _: ()) {}
    #[input]
    pub fn explicit_unit_return(&mut self, mut x: u64) -> () {
        x += 1;
        let _ = x;
    }
    #[input]
    pub fn static_str(&mut self, _label: &'static str) {}
    #[input]
    pub fn boxed(&mut self, _f: Box<dyn Fn(u8) -> u8 + Send>) {}
    #[input]
    pub fn self_payload(&mut self, _other: Option<Box<Self>>) {}

    // Repliers: the same shapes, returning the reply.
    #[replier]
    pub fn r_sync_none(&mut self) -> u32 {
        1
    }
    #[replier]
    pub fn r_sync_request(&mut self, x: u32) -> u32 {
        x
    }
    #[replier]
    pub fn r_sync_context(&mut self, cx: &mut Context<Self>) -> String {
        cx.name().to_owned()
    }
    #[replier]
    pub fn r_sync_request_context(&mut self, x: u32, _cx: &mut Context<Self>) -> u32 {
        x + 1
    }
    #[replier]
    pub async fn r_async_none(&mut self) -> u32 {
        2
    }
    #[replier]
    pub async fn r_async_request(&mut self, x: u32) -> Vec<u32> {
        vec![x; 2]
    }
    #[replier]
    pub async fn r_async_context(&mut self, cx: &mut Context<Self>) -> SimTime {
        cx.time()
    }
    #[replier]
    pub async fn r_async_request_context(&mut self, x: u32, cx: &mut Context<Self>) -> String {
        format!("{x}@{}", cx.time())
    }

    // Plain methods stay plain.
    pub fn new() -> Self {
        Everything { log: Output::new() }
    }
    fn helper(&self) -> usize {
        self.log.connection_count()
    }
}

fn main() -> Result<(), SimulationError> {
    let mut model = Everything::new();
    assert_eq!(model.helper(), 0);
    let log = EventQueue::new();
    model.log.connect_sink(&log);
    let mailbox = Mailbox::new();
    let address = mailbox.address();
    let mut simu = SimInit::new()
        .add_model(model, mailbox, "everything")
        .init(SimTime::ZERO)?;
    let ports = Everything::ports();

    let _: InputPort<Everything, ()> = ports.sync_none;
    let _: InputPort<Everything, (u8, String)> = ports.pattern;
    let _: InputPort<Everything, Option<Box<Everything>>> = ports.self_payload;
    simu.process_event(ports.sync_none, (), &address)?;
    simu.process_event(ports.sync_payload, 1, &address)?;
    simu.process_event(ports.sync_context, (), &address)?;
    simu.process_event(ports.sync_payload_context, 1, &address)?;
    simu.process_event(ports.async_none, (), &address)?;
    simu.process_event(ports.async_payload, 2, &address)?;
    simu.process_event(ports.async_context, (), &address)?;
    simu.process_event(ports.async_payload_context, 3, &address)?;
    simu.process_event(ports.pattern, (1, "x".to_owned()), &address)?;
    simu.process_event(ports.unit, (), &address)?;
    simu.process_event(ports.explicit_unit_return, 1, &address)?;
    simu.process_event(ports.static_str, "label", &address)?;
    simu.process_event(ports.boxed, Box::new(|x| x + 1), &address)?;
    simu.process_event(ports.self_payload, None, &address)?;

    assert_eq!(simu.process_query(ports.r_sync_none, (), &address)?, 1);
    assert_eq!(simu.process_query(ports.r_sync_request, 5, &address)?, 5);
    assert_eq!(simu.process_query(ports.r_sync_context, (), &address)?, "everything");
    assert_eq!(simu.process_query(ports.r_sync_request_context, 5, &address)?, 6);
    assert_eq!(simu.process_query(ports.r_async_none, (), &address)?, 2);
    assert_eq!(simu.process_query(ports.r_async_request, 3, &address)?, vec![3, 3]);
    assert_eq!(simu.process_query(ports.r_async_context, (), &address)?, SimTime::ZERO);
    let reply = simu.process_query(ports.r_async_request_context, 4, &address)?;
    assert!(reply.starts_with("4@"));

    assert_eq!(
        log.take_all()[..2],
        ["init everything".to_owned(), "async_payload 2".to_owned()]
    );

    // Metadata names every port and type.
    let meta = Everything::metadata();
    assert_eq!(meta.type_name, "Everything");
    assert_eq!(meta.port("pattern").unwrap().payload, "(u8, String)");
    assert_eq!(meta.port("r_async_request").unwrap().reply, Some("Vec<u32>"));
    assert_eq!(meta.port("log").unwrap().to_string(), "log: Output<String>");
    assert_eq!(meta.inputs.len(), 22);
    Ok(())
}
