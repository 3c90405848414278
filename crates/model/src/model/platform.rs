//! The machine: clusters of identical processors, each with a relative speed.

use serde::Serialize;

/// Index of a cluster in its platform.
pub type ClusterIdx = u16;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cluster {
    pub name: String,
    pub processors: u32,
    /// Relative speed (effective power); 1.0 is the reference machine.
    pub speed: f64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Platform {
    pub clusters: Vec<Cluster>,
    /// Extra service a job pays when its tasks span more than one cluster,
    /// as a fraction of its service time (the two-site grid's 10 % for a
    /// gang split over both sites); 0 by default. Applied by
    /// [`crate::sched::rate::job_rate`].
    #[serde(skip_serializing_if = "is_zero")]
    pub split_overhead: f64,
    /// A star network, one link per cluster to a central switch; `None`
    /// where clusters do not talk to each other at a cost (jobs then run at
    /// the speed of their slowest cluster and nothing else).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network: Option<Network>,
}

/// The inter-cluster network: each cluster's link to the central switch
/// and its available bandwidth (ABW), in the unit of the jobs' per-node
/// bandwidth (GB/s in the package-allocation scenarios).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Network {
    /// Available bandwidth per link, one per cluster, in cluster order.
    pub abw: Vec<f64>,
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

/// The most processors a platform may have, over all its clusters. The
/// engine keeps the owner of every processor (4 bytes each: 64 MiB at
/// this bound) and the console draws them; scenarios above it are refused
/// when they are read.
pub const MAX_PROCESSORS: u64 = 1 << 24;

impl Platform {
    /// `count` identical clusters of `processors` processors at speed 1.
    pub fn uniform(count: usize, processors: u32) -> Platform {
        Platform {
            clusters: (0..count)
                .map(|i| Cluster {
                    name: format!("c{i}"),
                    processors,
                    speed: 1.0,
                })
                .collect(),
            split_overhead: 0.0,
            network: None,
        }
    }

    pub fn total_processors(&self) -> u64 {
        self.clusters.iter().map(|c| c.processors as u64).sum()
    }

    pub fn largest_cluster(&self) -> u32 {
        self.clusters
            .iter()
            .map(|c| c.processors)
            .max()
            .unwrap_or(0)
    }

    /// A short label: `5×20` for uniform platforms, else the cluster sizes.
    pub fn shape(&self) -> String {
        let first = self.clusters.first().map(|c| c.processors);
        if self.clusters.iter().all(|c| Some(c.processors) == first) {
            format!("{}×{}", self.clusters.len(), first.unwrap_or(0))
        } else {
            self.clusters
                .iter()
                .map(|c| c.processors.to_string())
                .collect::<Vec<_>>()
                .join("/")
        }
    }

    /// Whether a job with these component widths can ever run here: each
    /// component on its own cluster, widest on the largest.
    pub fn can_ever_fit(&self, widths: &[u32]) -> bool {
        if widths.len() > self.clusters.len() {
            return false;
        }
        let mut w: Vec<u32> = widths.to_vec();
        w.sort_unstable_by(|a, b| b.cmp(a));
        let mut c: Vec<u32> = self.clusters.iter().map(|c| c.processors).collect();
        c.sort_unstable_by(|a, b| b.cmp(a));
        w.iter().zip(c.iter()).all(|(w, c)| w <= c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_and_fit() {
        let p = Platform::uniform(5, 20);
        assert_eq!(p.shape(), "5×20");
        assert_eq!(p.total_processors(), 100);
        assert!(p.can_ever_fit(&[20, 20, 20, 20, 20]));
        assert!(!p.can_ever_fit(&[21]));
        assert!(!p.can_ever_fit(&[1, 1, 1, 1, 1, 1]));
    }
}
