//! The durable audit queues, without PostgreSQL: a fixed set of queues, each a byte ring of
//! length-prefixed records used by one database at a time, and the rules by which databases
//! take turns. The pgrx side (`src/audit/queue.rs`) keeps [`QueueState`]s and their rings in
//! shared memory and calls these functions under one LWLock; it adds only what needs the
//! server (latches, worker starts, the catalog).
//!
//! A record is a little-endian `u32` length and its bytes. Positions (`head`, `tail`) are
//! monotonic byte counts; a byte's place in the ring is its position modulo the capacity, so a
//! record may wrap around the ring's end. The tail moves only when the worker has committed
//! what it read ([`QueueState::commit`]): a worker that dies loses nothing.

/// A database keeps a queue at least this long before it passes to a waiting database.
pub const QUANTUM_MS: i64 = 500;
/// A waiting database renews its want while it polls; an older want lapses.
pub const WANT_TTL_MS: i64 = 200;
/// A requested worker start counts as under way for this long.
pub const START_GRACE_MS: i64 = 10_000;
/// Bytes of a record's length prefix.
pub const PREFIX: u64 = 4;

/// No database (a free queue, no want).
pub const NO_DB: u32 = 0;

/// One queue's state (kept in shared memory: plain data, `repr(C)`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueState {
    /// Database of this queue; [`NO_DB`] = free.
    pub db: u32,
    /// Pid of the worker storing this queue's records (0 = none).
    pub worker_pid: i32,
    /// Wall-clock ms when a backend asked for a worker (0 = none pending).
    pub start_requested_ms: i64,
    /// Byte positions (monotonic; modulo the ring size in the ring).
    pub head: u64,
    pub tail: u64,
    /// Records queued / stored (or given up, see `failed`) so far; sequence numbers continue
    /// across owners, so a backend waiting for a record of the previous owner sees it done.
    pub enqueued: u64,
    pub done: u64,
    pub failed: u64,
    /// Wall-clock ms when the current database claimed the queue.
    pub claimed_ms: i64,
    /// A database without a queue that waits for this one ([`NO_DB`] = none), and when it last
    /// said so (a want lapses after [`WANT_TTL_MS`] without renewal).
    pub wanted_by: u32,
    pub wanted_ms: i64,
    /// Owner generation: +1 at every change of database; a worker serves one generation.
    pub generation: u64,
}

/// Why [`QueueState::append`] did not take a record.
#[derive(Debug, PartialEq, Eq)]
pub enum AppendError {
    /// Larger than the whole ring: it can never fit.
    TooLarge { bytes: usize, capacity: usize },
    /// Not enough free space now.
    Full,
}

impl QueueState {
    /// Bytes queued and not yet committed by the worker.
    pub fn queued(&self) -> u64 {
        self.head - self.tail
    }

    /// Whether the queue is empty and no worker runs or is starting (at `now`): it may pass to
    /// another database.
    pub fn idle(&self, now: i64) -> bool {
        self.head == self.tail
            && self.worker_pid == 0
            && (self.start_requested_ms == 0 || now - self.start_requested_ms >= START_GRACE_MS)
    }

    fn wanted(&self, now: i64) -> bool {
        self.wanted_by != NO_DB && self.wanted_by != self.db && now - self.wanted_ms < WANT_TTL_MS
    }

    fn want_live(&self, now: i64) -> bool {
        self.wanted_by != NO_DB && now - self.wanted_ms < WANT_TTL_MS
    }

    /// Append `record` to `ring` (this queue's bytes); returns its sequence number.
    pub fn append(&mut self, ring: &mut [u8], record: &[u8]) -> Result<u64, AppendError> {
        let cap = ring.len() as u64;
        let need = PREFIX + record.len() as u64;
        if need > cap || record.len() > u32::MAX as usize {
            return Err(AppendError::TooLarge {
                bytes: record.len(),
                capacity: ring.len(),
            });
        }
        if cap - self.queued() < need {
            return Err(AppendError::Full);
        }
        copy_in(ring, self.head, &(record.len() as u32).to_le_bytes());
        copy_in(ring, self.head + PREFIX, record);
        self.head += need;
        self.enqueued += 1;
        Ok(self.enqueued)
    }

    /// Up to `max` records from the tail on, and the tail position after them. Nothing moves:
    /// [`commit`](Self::commit) does once they are stored.
    pub fn read(&self, ring: &[u8], max: usize) -> (Vec<Vec<u8>>, u64) {
        let mut pos = self.tail;
        let mut out = Vec::new();
        while pos < self.head && out.len() < max {
            let mut len = [0u8; PREFIX as usize];
            copy_out(ring, pos, &mut len);
            let len = u32::from_le_bytes(len) as usize;
            let mut rec = vec![0u8; len];
            copy_out(ring, pos + PREFIX, &mut rec);
            out.push(rec);
            pos += PREFIX + len as u64;
        }
        (out, pos)
    }

    /// The worker committed `records` records (`failed` of them could not be stored) ending at
    /// `new_tail`.
    pub fn commit(&mut self, new_tail: u64, records: u64, failed: u64) {
        self.tail = new_tail;
        self.done += records;
        self.failed += failed;
    }

    /// Give up every queued record (the database was dropped) and free the queue; returns how
    /// many records were lost.
    pub fn discard(&mut self) -> u64 {
        let lost = self.enqueued - self.done;
        self.failed += lost;
        self.done = self.enqueued;
        self.tail = self.head;
        self.db = NO_DB;
        self.generation += 1;
        self.start_requested_ms = 0;
        self.wanted_by = NO_DB;
        lost
    }
}

/// What [`claim`] found for a database.
#[derive(Debug, PartialEq, Eq)]
pub enum Claim {
    /// The database's queue: append.
    Queue(usize),
    /// The database's queue, passing to a waiting database: no new records until it passed
    /// (the worker drains what is queued; the database then waits for a queue like any other).
    Yielding(usize),
    /// No queue yet: every queue is in use, and a want is registered on one.
    Waiting,
}

/// What [`claim`] did besides.
#[derive(Debug, PartialEq, Eq, Default)]
pub struct Claimed {
    /// The queue was newly claimed (free, or passed from another database): a previous
    /// worker's latch must be set (it sees the new generation and ends) and forgotten.
    pub took_over: Option<usize>,
}

/// The queue of database `db` at `now` (ms): its own; else a free one; else one that is idle
/// (nothing queued, no worker running or starting); else one this database waits for that has
/// drained. A database that finds none registers a want on the queue held longest (not wanted
/// by another, preferring one that drains); once that queue's owner has held it for
/// [`QUANTUM_MS`] it takes no new records ([`Claim::Yielding`]), its worker drains it and the
/// waiting database takes it over. So more databases than queues take turns, and one role
/// connected to many databases cannot keep the queues from everybody else.
pub fn claim(qs: &mut [QueueState], db: u32, hint: Option<usize>, now: i64) -> (Claim, Claimed) {
    let own = hint
        .filter(|&i| qs.get(i).is_some_and(|q| q.db == db))
        .or_else(|| qs.iter().position(|q| q.db == db));
    if let Some(i) = own {
        let q = &qs[i];
        let c = if q.wanted(now) && now - q.claimed_ms >= QUANTUM_MS {
            Claim::Yielding(i)
        } else {
            Claim::Queue(i)
        };
        return (c, Claimed::default());
    }
    let free = qs
        .iter()
        .position(|q| q.db == NO_DB)
        .or_else(|| qs.iter().position(|q| q.idle(now)))
        .or_else(|| {
            qs.iter().position(|q| {
                q.wanted_by == db
                    && q.wanted(now)
                    && q.head == q.tail
                    && now - q.claimed_ms >= QUANTUM_MS
            })
        });
    // This database's wants elsewhere end: renewed below, or satisfied (they would make an
    // owner pause for nothing).
    for q in qs.iter_mut().filter(|q| q.wanted_by == db) {
        q.wanted_by = NO_DB;
    }
    let Some(i) = free else {
        // (Chosen again at every poll: the best queue to wait for changes as workers come and go.)
        if let Some(q) = qs
            .iter_mut()
            .filter(|q| !q.want_live(now))
            .min_by_key(|q| (q.worker_pid == 0 && q.head != q.tail, q.claimed_ms))
        {
            q.wanted_by = db;
            q.wanted_ms = now;
        }
        return (Claim::Waiting, Claimed::default());
    };
    let q = &mut qs[i];
    q.db = db;
    q.generation += 1;
    q.worker_pid = 0;
    q.start_requested_ms = 0;
    q.claimed_ms = now;
    q.wanted_by = NO_DB;
    q.wanted_ms = 0;
    (Claim::Queue(i), Claimed { took_over: Some(i) })
}

/// Copy `data` into the ring at position `pos`, wrapping around its end.
fn copy_in(ring: &mut [u8], pos: u64, data: &[u8]) {
    let start = (pos % ring.len() as u64) as usize;
    let first = data.len().min(ring.len() - start);
    ring[start..start + first].copy_from_slice(&data[..first]);
    ring[..data.len() - first].copy_from_slice(&data[first..]);
}

/// Copy from the ring at position `pos` into `out`, wrapping around its end.
fn copy_out(ring: &[u8], pos: u64, out: &mut [u8]) {
    let start = (pos % ring.len() as u64) as usize;
    let first = out.len().min(ring.len() - start);
    out[..first].copy_from_slice(&ring[start..start + first]);
    let rest = out.len() - first;
    out[first..].copy_from_slice(&ring[..rest]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn queue(db: u32) -> QueueState {
        QueueState {
            db,
            ..Default::default()
        }
    }

    #[test]
    fn records_come_out_in_order_across_the_ring_end() {
        let mut ring = vec![0u8; 128];
        let mut q = queue(1);
        let mut expected = Vec::new();
        // Many rounds of 3 records of varying size: positions pass the end of the ring many
        // times, records and their length prefixes split at every offset.
        for round in 0..200u32 {
            for j in 0..3u32 {
                let rec: Vec<u8> = (0..(round + j) % 13).map(|b| (b + round) as u8).collect();
                q.append(&mut ring, &rec).unwrap();
                expected.push(rec);
            }
            let (got, tail) = q.read(&ring, 2);
            assert_eq!(got, expected[..2]);
            q.commit(tail, 2, 0);
            expected.drain(..2);
            if round % 5 == 4 {
                let (got, tail) = q.read(&ring, usize::MAX);
                assert_eq!(got, expected);
                q.commit(tail, got.len() as u64, 0);
                expected.clear();
            }
        }
        assert!(q.head > 128 * 20, "wrapped many times");
        assert_eq!(q.done + expected.len() as u64, q.enqueued);
    }

    #[test]
    fn a_full_queue_refuses_until_the_worker_commits() {
        let mut ring = vec![0u8; 32];
        let mut q = queue(1);
        assert_eq!(q.append(&mut ring, &[1; 10]), Ok(1)); // 14 bytes
        assert_eq!(q.append(&mut ring, &[2; 10]), Ok(2)); // 28 bytes
        assert_eq!(q.append(&mut ring, &[3; 1]), Err(AppendError::Full)); // 5 > 4 free
        assert_eq!(q.append(&mut ring, &[]), Ok(3)); // exactly the 4 bytes left
        assert_eq!(q.queued(), 32);
        let (got, tail) = q.read(&ring, 1);
        assert_eq!(got, vec![vec![1; 10]]);
        // Read but not committed: still no room (a dying worker loses nothing).
        assert_eq!(q.append(&mut ring, &[3; 1]), Err(AppendError::Full));
        q.commit(tail, 1, 0);
        assert_eq!(q.append(&mut ring, &[3; 10]), Ok(4));
        let (got, _) = q.read(&ring, 10);
        assert_eq!(got, vec![vec![2; 10], vec![], vec![3; 10]]);
    }

    #[test]
    fn an_oversized_record_is_refused_whatever_the_free_space() {
        let mut ring = vec![0u8; 32];
        let mut q = queue(1);
        assert_eq!(
            q.append(&mut ring, &[0; 29]),
            Err(AppendError::TooLarge {
                bytes: 29,
                capacity: 32
            })
        );
        assert_eq!(q.append(&mut ring, &[0; 28]), Ok(1)); // prefix + 28 = the whole ring
        assert_eq!(q.head, 32);
        assert_eq!(q.enqueued, 1);
    }

    #[test]
    fn a_dropped_database_loses_what_it_queued_and_frees_the_queue() {
        let mut ring = vec![0u8; 64];
        let mut q = queue(5);
        q.append(&mut ring, b"a").unwrap();
        q.append(&mut ring, b"b").unwrap();
        let g = q.generation;
        assert_eq!(q.discard(), 2);
        assert_eq!((q.db, q.queued(), q.done, q.failed), (NO_DB, 0, 2, 2));
        assert_eq!(q.generation, g + 1);
    }

    #[test]
    fn databases_take_free_then_idle_queues() {
        let mut qs = [QueueState::default(); 2];
        assert_eq!(claim(&mut qs, 10, None, 0).0, Claim::Queue(0));
        assert_eq!(claim(&mut qs, 11, None, 0).0, Claim::Queue(1));
        assert_eq!(
            claim(&mut qs, 10, Some(1), 1).0,
            Claim::Queue(0),
            "a wrong hint"
        );
        // Both in use with a worker: a third database waits (its want on the oldest).
        qs[0].worker_pid = 100;
        qs[1].worker_pid = 101;
        qs[0].claimed_ms = 0;
        qs[1].claimed_ms = 5;
        assert_eq!(claim(&mut qs, 12, None, 10).0, Claim::Waiting);
        assert_eq!(qs[0].wanted_by, 12);
        // Database 11's worker ended with its queue empty: the queue is idle and passes.
        qs[1].worker_pid = 0;
        let (c, d) = claim(&mut qs, 12, None, 20);
        assert_eq!(c, Claim::Queue(1));
        assert_eq!(d.took_over, Some(1));
        assert_eq!(qs[1].db, 12);
        assert_eq!(qs[0].wanted_by, NO_DB, "its want elsewhere ended");
    }

    #[test]
    fn a_held_queue_yields_to_a_waiting_database_after_its_quantum() {
        let mut ring = vec![0u8; 64];
        let mut qs = [QueueState::default(); 1];
        assert_eq!(claim(&mut qs, 1, None, 0).0, Claim::Queue(0));
        qs[0].worker_pid = 7;
        qs[0].append(&mut ring, b"x").unwrap();
        // Database 2 waits; before the quantum the owner keeps appending.
        assert_eq!(claim(&mut qs, 2, None, 100).0, Claim::Waiting);
        assert_eq!(claim(&mut qs, 1, Some(0), 150).0, Claim::Queue(0));
        // Past the quantum, with the want renewed: the owner yields.
        assert_eq!(claim(&mut qs, 2, None, QUANTUM_MS).0, Claim::Waiting);
        assert_eq!(
            claim(&mut qs, 1, Some(0), QUANTUM_MS + 1).0,
            Claim::Yielding(0)
        );
        // Not drained yet: the waiter still waits.
        assert_eq!(claim(&mut qs, 2, None, QUANTUM_MS + 2).0, Claim::Waiting);
        // The worker commits; the waiter takes the drained queue (the worker is told to end).
        let (_, tail) = qs[0].read(&ring, 10);
        qs[0].commit(tail, 1, 0);
        let g = qs[0].generation;
        let (c, d) = claim(&mut qs, 2, None, QUANTUM_MS + 3);
        assert_eq!((c, d.took_over), (Claim::Queue(0), Some(0)));
        assert_eq!(
            (qs[0].db, qs[0].worker_pid, qs[0].generation),
            (2, 0, g + 1)
        );
        // Sequence numbers continue across owners.
        assert_eq!(qs[0].append(&mut ring, b"y"), Ok(2));
        // The first database now waits like any other.
        assert_eq!(claim(&mut qs, 1, Some(0), QUANTUM_MS + 4).0, Claim::Waiting);
    }

    #[test]
    fn a_lapsed_want_does_not_stop_the_owner() {
        let mut qs = [QueueState::default(); 1];
        claim(&mut qs, 1, None, 0);
        qs[0].worker_pid = 7;
        assert_eq!(claim(&mut qs, 2, None, 1_000).0, Claim::Waiting);
        // The waiter stopped polling: after WANT_TTL_MS its want no longer counts.
        assert_eq!(
            claim(&mut qs, 1, Some(0), 1_000 + WANT_TTL_MS).0,
            Claim::Queue(0)
        );
    }

    #[test]
    fn interleaved_databases_each_see_their_own_records() {
        // Three databases, two queues, appends, reads and commits interleaved as backends and
        // workers would: every record is read by the worker of the queue it went to, in order,
        // exactly once, and nobody appends to a queue it does not hold.
        let mut rings = [vec![0u8; 96], vec![0u8; 96]];
        let mut qs = [QueueState::default(); 2];
        let mut sent: Vec<(u32, Vec<u8>)> = Vec::new();
        let mut stored: Vec<(u32, Vec<u8>)> = Vec::new();
        let mut now = 0i64;
        for step in 0..3_000u32 {
            now += 7;
            let db = 1 + step % 3;
            match claim(&mut qs, db, None, now).0 {
                Claim::Queue(i) => {
                    assert_eq!(qs[i].db, db);
                    qs[i].worker_pid = 1000 + i as i32;
                    let rec = format!("{db}:{step}").into_bytes();
                    if qs[i].append(&mut rings[i], &rec).is_ok() {
                        sent.push((db, rec));
                    }
                }
                Claim::Yielding(_) | Claim::Waiting => {}
            }
            // A worker drains every few steps; an idle one ends now and then.
            if step % 4 == 0 {
                for i in 0..2 {
                    let (got, tail) = qs[i].read(&rings[i], 3);
                    let n = got.len() as u64;
                    stored.extend(got.into_iter().map(|r| (qs[i].db, r)));
                    qs[i].commit(tail, n, 0);
                    if qs[i].head == qs[i].tail && step % 24 == 0 {
                        qs[i].worker_pid = 0;
                    }
                }
            }
        }
        for i in 0..2 {
            let (got, tail) = qs[i].read(&rings[i], usize::MAX);
            let n = got.len() as u64;
            stored.extend(got.into_iter().map(|r| (qs[i].db, r)));
            qs[i].commit(tail, n, 0);
        }
        let mut a = sent.clone();
        let mut b = stored.clone();
        a.sort();
        b.sort();
        assert_eq!(
            a, b,
            "every record stored once, by its own database's worker"
        );
        for db in 1..=3 {
            assert!(
                sent.iter().filter(|(d, _)| *d == db).count() > 50,
                "db {db} had turns"
            );
            let order: Vec<_> = stored.iter().filter(|(d, _)| *d == db).collect();
            let sent_order: Vec<_> = sent.iter().filter(|(d, _)| *d == db).collect();
            assert_eq!(order, sent_order, "in order");
        }
    }
}
