//! Budgets and rate limits of a role or an interface: the counters of one budget and the check
//! made before each LLM request. Pure arithmetic on a plain `Copy` struct, so that the host can
//! keep the counters where every session sees them at once (pg_mcp: shared memory under one
//! lock) and the check costs the same however large the audit grows.

/// The limits of one budget (`mcp.budget`); `None` = no limit of that kind.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Limits {
    /// Prompt + completion tokens per UTC day.
    pub tokens_per_day: Option<u64>,
    /// Cost per UTC day, in the currency of the providers' prices.
    pub cost_per_day: Option<f64>,
    /// LLM requests per minute.
    pub requests_per_minute: Option<u64>,
}

/// Cost is counted in millionths, so that concurrent additions stay exact integers.
pub const COST_UNITS: f64 = 1_000_000.0;

/// The counters of one budget in its current periods.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[repr(C)]
pub struct Counter {
    /// Days since 1970-01-01 (UTC) of `day_tokens` and `day_cost`.
    pub day: i64,
    pub day_tokens: u64,
    /// In millionths of the price unit ([`COST_UNITS`]).
    pub day_cost: u64,
    /// Minutes since the epoch of `minute_requests`.
    pub minute: i64,
    pub minute_requests: u64,
}

impl Counter {
    /// Start new periods when `now` (seconds since the epoch) is past the counted ones.
    pub fn roll(&mut self, now: i64) {
        let day = now.div_euclid(86_400);
        if day != self.day {
            self.day = day;
            self.day_tokens = 0;
            self.day_cost = 0;
        }
        let minute = now.div_euclid(60);
        if minute != self.minute {
            self.minute = minute;
            self.minute_requests = 0;
        }
    }

    /// `Err(message)` when a limit is reached: the next request would pass it. `owner` names the
    /// budget (`role "alice"`, `interface "chatbot"`). Call after [`Counter::roll`].
    pub fn check(&self, owner: &str, l: &Limits, now: i64) -> Result<(), String> {
        let next_day = (now.div_euclid(86_400) + 1) * 86_400;
        let next_minute = (now.div_euclid(60) + 1) * 60;
        if let Some(max) = l.requests_per_minute {
            if self.minute_requests >= max {
                return Err(format!(
                    "budget of {owner} exceeded: requests_per_minute {max} reached ({} requests this minute); resets at {}",
                    self.minute_requests,
                    utc(next_minute)
                ));
            }
        }
        if let Some(max) = l.tokens_per_day {
            if self.day_tokens >= max {
                return Err(format!(
                    "budget of {owner} exceeded: tokens_per_day {max} reached ({} tokens today); resets at {}",
                    self.day_tokens,
                    utc(next_day)
                ));
            }
        }
        if let Some(max) = l.cost_per_day {
            let used = self.day_cost as f64 / COST_UNITS;
            if used >= max {
                return Err(format!(
                    "budget of {owner} exceeded: cost_per_day {max} reached ({used:.6} today); resets at {}",
                    utc(next_day)
                ));
            }
        }
        Ok(())
    }

    /// Count one request (made after a successful [`Counter::check`]).
    pub fn count_request(&mut self) {
        self.minute_requests = self.minute_requests.saturating_add(1);
    }

    /// Add what one request used.
    pub fn add_usage(&mut self, tokens: u64, cost: u64) {
        self.day_tokens = self.day_tokens.saturating_add(tokens);
        self.day_cost = self.day_cost.saturating_add(cost);
    }
}

/// The cost of `prompt` and `completion` tokens at prices per 1000 tokens, in [`COST_UNITS`].
pub fn cost_units(prompt: u64, completion: u64, per_1k_prompt: f64, per_1k_completion: f64) -> u64 {
    let c = (prompt as f64 * per_1k_prompt + completion as f64 * per_1k_completion) / 1000.0;
    let units = (c * COST_UNITS).ceil();
    if units.is_finite() && units > 0.0 {
        units.min(u64::MAX as f64) as u64
    } else {
        0
    }
}

/// `YYYY-MM-DD HH:MM:SS UTC` of seconds since the epoch (proleptic Gregorian calendar).
pub fn utc(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Howard Hinnant's civil_from_days
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_formats_known_instants() {
        assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc(951_782_400), "2000-02-29 00:00:00 UTC");
        assert_eq!(utc(1_798_761_599), "2026-12-31 23:59:59 UTC");
    }

    #[test]
    fn requests_per_minute_reset_with_the_minute() {
        let l = Limits {
            requests_per_minute: Some(2),
            ..Limits::default()
        };
        let mut c = Counter::default();
        let t = 1_800_000_000; // 2027-01-15 08:00:00 UTC
        c.roll(t);
        for _ in 0..2 {
            assert!(c.check("role \"a\"", &l, t).is_ok());
            c.count_request();
        }
        let e = c.check("role \"a\"", &l, t + 5).unwrap_err();
        assert!(e.contains("requests_per_minute 2"), "{e}");
        assert!(e.contains("resets at 2027-01-15 08:01:00 UTC"), "{e}");
        c.roll(t + 60);
        assert!(c.check("role \"a\"", &l, t + 60).is_ok());
    }

    #[test]
    fn tokens_and_cost_per_day() {
        let l = Limits {
            tokens_per_day: Some(100),
            cost_per_day: Some(0.01),
            ..Limits::default()
        };
        let mut c = Counter::default();
        let t = 1_800_000_000;
        c.roll(t);
        c.add_usage(99, 0);
        assert!(c.check("x", &l, t).is_ok());
        c.add_usage(1, 0);
        let e = c.check("interface \"chatbot\"", &l, t).unwrap_err();
        assert!(
            e.contains("tokens_per_day 100 reached (100 tokens today)"),
            "{e}"
        );
        assert!(e.contains("resets at 2027-01-16 00:00:00 UTC"), "{e}");
        let mut c = Counter::default();
        c.roll(t);
        c.add_usage(0, cost_units(1000, 0, 0.01, 0.0));
        let e = c.check("x", &l, t).unwrap_err();
        assert!(e.contains("cost_per_day 0.01"), "{e}");
        c.roll(t + 86_400);
        assert_eq!(c.day_tokens, 0);
        assert!(c.check("x", &l, t + 86_400).is_ok());
    }
}
