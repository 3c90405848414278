//! `[platform]`: clusters of processors (a shape or a list), their speeds
//! (Γ or a heterogeneity H) and the inter-cluster links, each checked
//! where it is written.

use super::schema::{OneOrMany, PlatformSection};
use super::values::Shown;
use super::{Scenario, ScenarioError};
use crate::model::platform::MAX_PROCESSORS;
use crate::model::{Cluster, Platform};
use toml::Spanned;

/// The platform `[platform]` describes.
pub(super) fn platform_of(
    s: &Scenario,
    p: &Spanned<PlatformSection>,
) -> Result<Platform, ScenarioError> {
    let mut platform = clusters_of(s, p)?;
    let sec = p.get_ref();
    for (i, c) in sec.clusters.iter().enumerate() {
        if let Some(g) = c.get_ref().gamma {
            if !(g > 0.0 && g <= 1.0) {
                return Err(s.error_at(
                    c.span(),
                    format!(
                        "platform.clusters[{i}].gamma: the effective power Γ must be above 0 and at most 1, found {}",
                        Shown(g)
                    ),
                ));
            }
            platform.clusters[i].speed = g;
        }
    }
    if let Some(h) = &sec.heterogeneity {
        let v = *h.get_ref();
        if !(0.0..1.0).contains(&v) {
            return Err(s.error_at(
                h.span(),
                format!(
                    "platform.heterogeneity: H must be at least 0 and below 1 (the slowest cluster keeps Γ = 1 − H > 0), found {}",
                    Shown(v)
                ),
            ));
        }
        let n = platform.clusters.len();
        for (i, c) in platform.clusters.iter_mut().enumerate() {
            c.speed = if n < 2 {
                1.0
            } else {
                1.0 - v * i as f64 / (n - 1) as f64
            };
        }
    }
    if let Some(net) = &sec.network {
        let n = platform.clusters.len();
        let abw = match net.get_ref().abw.as_ref() {
            None => vec![1.0; n],
            Some(a) => {
                let v = match a.get_ref() {
                    OneOrMany::One(x) => vec![*x; n],
                    OneOrMany::Many(v) => v.clone(),
                };
                if v.len() != n {
                    return Err(s.error_at(
                        a.span(),
                        format!(
                            "platform.network.abw: {} link{} given for {n} cluster{} (one per cluster, or one value for all)",
                            v.len(),
                            if v.len() == 1 { "" } else { "s" },
                            if n == 1 { "" } else { "s" }
                        ),
                    ));
                }
                if let Some(bad) = v.iter().find(|x| !(x.is_finite() && **x > 0.0)) {
                    return Err(s.error_at(
                        a.span(),
                        format!(
                            "platform.network.abw: a link's available bandwidth must be above 0, found {}",
                            Shown(*bad)
                        ),
                    ));
                }
                v
            }
        };
        if let Some(c) = platform.clusters.iter().find(|c| c.speed > 1.0) {
            return Err(s.error_at(
                p.span(),
                format!(
                    "[platform] with a network takes effective powers Γ ≤ 1: cluster {} has speed {}",
                    c.name,
                    Shown(c.speed)
                ),
            ));
        }
        platform.network = Some(crate::model::Network { abw });
    }
    Ok(platform)
}

fn clusters_of(s: &Scenario, p: &Spanned<PlatformSection>) -> Result<Platform, ScenarioError> {
    let sec = p.get_ref();
    match (&sec.shape, sec.clusters.is_empty()) {
        (Some(_), false) => Err(s.error_at(
            p.span(),
            "[platform] takes either `shape` or [[platform.clusters]], not both",
        )),
        (None, true) => Err(s.error_at(
            p.span(),
            "[platform] needs `shape = \"COUNTxPROCESSORS\"` (e.g. \"5x20\") or [[platform.clusters]] entries",
        )),
        (Some(shape), true) => {
            let bad = || {
                s.error_at(
                    shape.span(),
                    format!(
                        "shape must be COUNTxPROCESSORS with both at least 1, e.g. \"5x20\", found \"{}\"",
                        shape.get_ref()
                    ),
                )
            };
            let t = shape.get_ref().replace('×', "x");
            let (a, b) = t.split_once(['x', 'X']).ok_or_else(bad)?;
            // Digits too many for any number are too large, not malformed.
            let number = |x: &str| -> Option<u128> {
                let x = x.trim();
                if x.is_empty() || !x.bytes().all(|c| c.is_ascii_digit()) {
                    return None;
                }
                Some(x.parse::<u128>().unwrap_or(u128::MAX))
            };
            let (Some(count), Some(procs)) = (number(a), number(b)) else {
                return Err(bad());
            };
            if count == 0 || procs == 0 {
                return Err(bad());
            }
            let too_many = |what: String| {
                s.error_at(
                    shape.span(),
                    format!("shape \"{}\": {what}", shape.get_ref()),
                )
            };
            if count > u16::MAX as u128 {
                return Err(too_many(format!(
                    "at most {} clusters, found {}",
                    u16::MAX,
                    a.trim()
                )));
            }
            if procs > u32::MAX as u128 {
                return Err(too_many(format!(
                    "at most {} processors a cluster, found {}",
                    u32::MAX,
                    b.trim()
                )));
            }
            let (count, procs) = (count as usize, procs as u32);
            let total = count as u64 * procs as u64;
            if total > MAX_PROCESSORS {
                return Err(s.error_at(shape.span(), too_many_processors(total)));
            }
            Ok(Platform::uniform(count, procs))
        }
        (None, false) => {
            let mut total = 0u64;
            for c in &sec.clusters {
                total += c.get_ref().processors.0 as u64;
                if total > MAX_PROCESSORS {
                    let all: u64 = sec.clusters.iter().map(|c| c.get_ref().processors.0 as u64).sum();
                    return Err(s.error_at(c.span(), too_many_processors(all)));
                }
            }
            clusters_listed(sec)
        }
    }
}

/// Why a platform of `total` processors is refused.
fn too_many_processors(total: u64) -> String {
    format!(
        "[platform] has {total} processors in all; schedscope holds at most {MAX_PROCESSORS} (it keeps the owner of every processor, 4 bytes each)"
    )
}

/// The platform of `[[platform.clusters]]` entries.
fn clusters_listed(sec: &PlatformSection) -> Result<Platform, ScenarioError> {
    Ok(Platform {
        split_overhead: 0.0,
        clusters: sec
            .clusters
            .iter()
            .enumerate()
            .map(|(i, c)| Cluster {
                name: c.get_ref().name.clone().unwrap_or_else(|| format!("c{i}")),
                processors: c.get_ref().processors.0,
                speed: c.get_ref().speed.0,
            })
            .collect(),
        network: None,
    })
}
