//! The spare boxes: one kept per origin, a returning box kept or left for
//! its caller to drop, and a one-shot event written into a spare of the
//! same type only.

use super::*;
use crate::scheduler::tests::tagged::{tag, Tagged};
use crate::Mailbox;

#[test]
fn an_origin_keeps_one_spare() {
    let mut spares = Spares::default();
    assert!(spares.take(3).is_none());
    assert!(spares.put(3, Box::new(Tagged(1))).is_none());
    // The slot is taken: the next one is handed back.
    let mut back = spares.put(3, Box::new(Tagged(2))).expect("handed back");
    assert_eq!(tag(&mut back), 2);
    // Another origin has its own slot.
    assert!(spares.put(1, Box::new(Tagged(3))).is_none());
    let mut spare = spares.take(3).expect("a spare");
    assert_eq!(tag(&mut spare), 1);
    assert!(spares.take(3).is_none());
    assert_eq!(spares.take(1).as_mut().map(tag), Some(3));
}

#[test]
fn a_returning_box_is_kept_once_per_origin() {
    let mut spares = Spares::default();
    let mut returning = ReturningBox::default();
    returning.send(2, Box::new(Tagged(1)));
    spares.take_back(&mut returning);
    assert!(returning.get_mut().is_none(), "kept");
    returning.send(2, Box::new(Tagged(2)));
    spares.take_back(&mut returning);
    let left = returning
        .get_mut()
        .map(|(origin, action)| (*origin, tag(action)));
    assert_eq!(left, Some((2, 2)), "left for the caller to drop");
    returning.drop_unkept();
    assert!(returning.get_mut().is_none());
}

/// A model with two inputs of different payload types.
#[crate::model]
struct Two;

#[crate::model]
impl Two {
    #[input]
    fn small(&mut self, _: u8) {}

    #[input]
    fn large(&mut self, _: u64) {}
}

/// The address of a spare action, to tell whether a box was reused.
fn box_address(spare: &mut SpareBox) -> Option<*const ()> {
    spare
        .get_mut()
        .map(|action| &**action as *const dyn Action as *const ())
}

#[test]
fn a_one_shot_event_reuses_a_spare_of_its_own_type_only() {
    let mailbox = Mailbox::<Two>::new();
    let address = mailbox.address();
    let mut spares = Spares::default();
    let mut spare = SpareBox::default();
    // No spare: a new box, which comes back as the spare.
    let first = spare.event(Two::ports().small, 1, &address);
    assert!(spares.put(1, first.action).is_none());
    spare.restock(&mut spares, 1);
    let kept = box_address(&mut spare).expect("restocked");
    // Same port type: written into the spare.
    let second = spare.event(Two::ports().small, 2, &address);
    assert_eq!(&*second.action as *const dyn Action as *const (), kept);
    assert!(spare.get_mut().is_none(), "used up");
    // Another payload type: the spare is dropped, a new box allocated.
    assert!(spares.put(1, second.action).is_none());
    spare.restock(&mut spares, 1);
    let third = spare.event(Two::ports().large, 3, &address);
    assert!(third.action.describe().contains("u64"), "a new box");
    assert!(spare.get_mut().is_none());
}
