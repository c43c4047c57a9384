//! The sharing of a restore's chunks and the ranking of its failures
//! between two threads, under loom: each chunk is taken once, and after
//! the join the earliest failure is the one noted, whichever thread met
//! which.

use super::*;
use crate::sync::Arc;

/// Two threads take the chunks of a list of three; the chunks 1 and 2
/// fail. Every chunk is taken once, and the earliest rank noted is chunk
/// 1's; work after it stops, work before it does not.
#[test]
fn loom_two_threads_share_chunks_and_rank_their_failures() {
    loom::model(|| {
        let shared = Arc::new((Chunks::new(), Failed::new()));
        let run = |shared: Arc<(Chunks, Failed)>| {
            let (chunks, failed) = &*shared;
            let mut taken = Vec::new();
            loop {
                let chunk = chunks.take();
                if chunk >= 3 {
                    return taken;
                }
                taken.push(chunk);
                if chunk > 0 {
                    let error = RestoreError::Malformed(format!("chunk {chunk}"));
                    let _ = failed.noting(Rank::event(chunk * 1024), || Err::<(), _>(error));
                }
            }
        };
        let other = {
            let shared = shared.clone();
            loom::thread::spawn(move || run(shared))
        };
        let mut taken = run(shared.clone());
        taken.extend(other.join().unwrap());
        taken.sort_unstable();
        assert_eq!(taken, [0, 1, 2]);
        let failed = &shared.1;
        assert!(failed.stop_before(Rank::event(1024)).is_ok());
        assert!(failed.stop_before(Rank::event(1025)).is_err());
    });
}
