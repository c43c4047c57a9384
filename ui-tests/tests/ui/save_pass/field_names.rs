//! A saved field may have any name a field can have, even the names of
//! the generated code's own variables (`state`, `reader`, `writer`,
//! `fields`), and such a model saves and restores.
#![deny(warnings)]

use causim::prelude::*;

#[model(save)]
pub struct Machine {
    state: u8,
    count: u32,
    reader: bool,
    writer: bool,
    fields: u16,
}

#[model(save)]
impl Machine {
    #[input]
    pub fn set(&mut self, state: u8) {
        self.state = state;
        self.count += 1;
        self.reader = !self.reader;
        self.writer = self.reader;
        self.fields += u16::from(state);
    }

    #[replier]
    pub fn read(&mut self) -> (u8, u32, bool, bool, u16) {
        (self.state, self.count, self.reader, self.writer, self.fields)
    }
}

fn bench() -> (SimInit, Address<Machine>) {
    let mailbox = Mailbox::new();
    let address = mailbox.address();
    let machine = Machine {
        state: 0,
        count: 0,
        reader: false,
        writer: false,
        fields: 0,
    };
    (SimInit::new().add_model(machine, mailbox, "machine"), address)
}

fn main() {
    let (init, machine) = bench();
    let mut simu = init.init(SimTime::ZERO).unwrap();
    simu.process_event(Machine::ports().set, 7, &machine).unwrap();
    let mut snapshot = Vec::new();
    simu.save(&mut snapshot).unwrap();
    let (init, machine) = bench();
    let mut restored = init.restore(snapshot.as_slice()).unwrap();
    let read = restored.process_query(Machine::ports().read, (), &machine).unwrap();
    assert_eq!(read, (7, 1, true, true, 7));
}
