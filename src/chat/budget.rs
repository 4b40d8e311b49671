//! Budgets and rate limits per role and per interface (`mcp.budget`, sql/governance.sql),
//! checked before each LLM request of a chat.
//!
//! The counters live in shared memory, one slot per budget under one lightweight lock: a check
//! and the count of the request it lets through are one step under that lock, so concurrent
//! sessions never get past a limit together; the count is seen by every session at once and
//! is not undone by a ROLLBACK of the caller or by a tool's subtransaction (a request that was
//! sent was spent). Nothing reads the audit tables, so the check costs the same at any audit
//! size. The counters start from zero when the server starts. Without
//! `shared_preload_libraries = 'pg_mcp'` there is no shared memory: a chat that a budget applies
//! to is refused (55000) rather than run uncounted.

use crate::error::{McpError, McpResult};
use crate::pg::select_kept;
use mcp_chat::budget::{cost_units, Counter, Limits, COST_UNITS};
use pgrx::lwlock::PgLwLock;
use pgrx::pg_shmem_init;
use pgrx::prelude::*;
use pgrx::shmem::PGRXSharedMemory;
use std::sync::atomic::{AtomicBool, Ordering};

/// Budgets that can be counted at once (rows of mcp.budget in use since the server started).
const SLOTS: usize = 512;
const NAME_BYTES: usize = 64;

#[derive(Clone, Copy)]
#[repr(C)]
struct Slot {
    used: bool,
    /// 1 = role, 2 = interface.
    scope: u8,
    len: u8,
    name: [u8; NAME_BYTES],
    counter: Counter,
}

const EMPTY: Slot = Slot {
    used: false,
    scope: 0,
    len: 0,
    name: [0; NAME_BYTES],
    counter: Counter {
        day: 0,
        day_tokens: 0,
        day_cost: 0,
        minute: 0,
        minute_requests: 0,
    },
};

#[derive(Clone, Copy)]
#[repr(C)]
pub struct Table {
    slots: [Slot; SLOTS],
}

impl Default for Table {
    fn default() -> Self {
        Table {
            slots: [EMPTY; SLOTS],
        }
    }
}

// SAFETY: plain data (no pointers), the same in every process.
unsafe impl PGRXSharedMemory for Table {}

static TABLE: PgLwLock<Table> = unsafe { PgLwLock::new(c"pg_mcp_budget_counters") };
/// Set in the postmaster while it loads pg_mcp (inherited by every backend it forks).
static SHARED: AtomicBool = AtomicBool::new(false);

/// Reserve the counters' shared memory (only while shared_preload_libraries loads pg_mcp).
pub fn init() {
    if unsafe { pg_sys::process_shared_preload_libraries_in_progress } {
        pg_shmem_init!(TABLE);
        SHARED.store(true, Ordering::Relaxed);
    }
}

fn scope_code(scope: &str) -> u8 {
    if scope == "role" {
        1
    } else {
        2
    }
}

/// One budget that applies to a run.
struct Budget {
    scope: u8,
    name: String,
    owner: String,
    limits: Limits,
}

/// The budgets of one run: its role's and its interface's.
pub struct RunBudgets {
    budgets: Vec<Budget>,
    /// Prices per 1000 prompt and completion tokens (the provider's options).
    prices: (f64, f64),
}

fn now_s() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// The slot of a budget, made when missing; `None` when every slot is taken.
fn slot_of(t: &mut Table, scope: u8, name: &str) -> Option<usize> {
    let bytes = name.as_bytes();
    let bytes = &bytes[..bytes.len().min(NAME_BYTES)];
    let mut free = None;
    for (i, s) in t.slots.iter().enumerate() {
        if s.used {
            if s.scope == scope && &s.name[..s.len as usize] == bytes {
                return Some(i);
            }
        } else if free.is_none() {
            free = Some(i);
        }
    }
    let i = free?;
    let s = &mut t.slots[i];
    s.used = true;
    s.scope = scope;
    s.len = bytes.len() as u8;
    s.name = [0; NAME_BYTES];
    s.name[..bytes.len()].copy_from_slice(bytes);
    s.counter = Counter::default();
    Some(i)
}

impl RunBudgets {
    /// The budgets of `role` and `interface` (mcp.budget), with the run's provider `prices` per
    /// 1,000 prompt and completion tokens (read with the provider's row).
    pub fn load(role: &str, interface: &str, prices: (f64, f64)) -> McpResult<RunBudgets> {
        let budgets = select_kept(
            "SELECT scope, name, tokens_per_day, cost_per_day::float8, requests_per_minute
               FROM mcp.budget
              WHERE (scope = 'role' AND name = $1) OR (scope = 'interface' AND name = $2)
              ORDER BY scope, name",
            &[role.into(), interface.into()],
            |t| {
                t.map(|r| {
                    let scope = r.get::<String>(1)?.unwrap_or_default();
                    let name = r.get::<String>(2)?.unwrap_or_default();
                    Ok(Budget {
                        scope: scope_code(&scope),
                        owner: format!("{scope} \"{name}\""),
                        name,
                        limits: Limits {
                            tokens_per_day: r.get::<i64>(3)?.map(|n| n.max(0) as u64),
                            cost_per_day: r.get::<f64>(4)?,
                            requests_per_minute: r.get::<i32>(5)?.map(|n| n.max(0) as u64),
                        },
                    })
                })
                .collect::<Result<Vec<_>, pgrx::spi::SpiError>>()
            },
        )?;
        if budgets.is_empty() {
            return Ok(RunBudgets {
                budgets,
                prices: (0.0, 0.0),
            });
        }
        if !SHARED.load(Ordering::Relaxed) {
            return Err(McpError::NotReady(format!(
                "{} has a budget, and budgets are counted in shared memory: pg_mcp must be in shared_preload_libraries",
                budgets[0].owner
            )));
        }
        Ok(RunBudgets { budgets, prices })
    }

    /// Check every budget and, when none is reached, count the request in each: one step under
    /// the lock.
    pub fn before_request(&self) -> Result<(), String> {
        if self.budgets.is_empty() {
            return Ok(());
        }
        let now = now_s();
        let mut t = TABLE.exclusive();
        let mut slots = [0usize; 2];
        for (k, b) in self.budgets.iter().enumerate().take(2) {
            let Some(i) = slot_of(&mut t, b.scope, &b.name) else {
                return Err(format!(
                    "budget of {} cannot be counted: all {SLOTS} budget counters are in use",
                    b.owner
                ));
            };
            t.slots[i].counter.roll(now);
            t.slots[i].counter.check(&b.owner, &b.limits, now)?;
            slots[k] = i;
        }
        for &i in slots.iter().take(self.budgets.len().min(2)) {
            t.slots[i].counter.count_request();
        }
        Ok(())
    }

    /// Add what a request used to every budget of the run.
    pub fn after_request(&self, prompt_tokens: u64, completion_tokens: u64) {
        if self.budgets.is_empty() {
            return;
        }
        let tokens = prompt_tokens.saturating_add(completion_tokens);
        let cost = cost_units(
            prompt_tokens,
            completion_tokens,
            self.prices.0,
            self.prices.1,
        );
        let now = now_s();
        let mut t = TABLE.exclusive();
        for b in &self.budgets {
            if let Some(i) = slot_of(&mut t, b.scope, &b.name) {
                t.slots[i].counter.roll(now);
                t.slots[i].counter.add_usage(tokens, cost);
            }
        }
    }
}

/// `mcp.budget_usage()`: the counters of every budget counted since the server started.
#[allow(clippy::type_complexity)]
pub fn usage() -> Vec<(String, String, i64, f64, i64)> {
    if !SHARED.load(Ordering::Relaxed) {
        return Vec::new();
    }
    let now = now_s();
    let t = TABLE.share();
    t.slots
        .iter()
        .filter(|s| s.used)
        .map(|s| {
            let mut c = s.counter;
            c.roll(now);
            (
                if s.scope == 1 { "role" } else { "interface" }.to_string(),
                String::from_utf8_lossy(&s.name[..s.len as usize]).into_owned(),
                c.day_tokens.min(i64::MAX as u64) as i64,
                c.day_cost as f64 / COST_UNITS,
                c.minute_requests.min(i64::MAX as u64) as i64,
            )
        })
        .collect()
}
