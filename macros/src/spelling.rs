//! Near-misses of causim's attribute names, so that `#[requried]` is
//! reported as a typo of `#[required]`, with the fix, instead of rustc's
//! "cannot find attribute" and the errors that follow from a port that
//! silently is not one.

/// The causim attribute that `word` most likely misspells, if any: one
/// whose name is at most a third of its length away (at least one edit,
/// a swap of two neighbours counting as one), ignoring case.
pub fn near_miss(word: &str, candidates: &[&'static str]) -> Option<&'static str> {
    let lower = word.to_lowercase();
    candidates
        .iter()
        .filter(|&&name| name != word)
        .map(|&name| (name, distance(&lower, name)))
        .filter(|&(name, d)| d <= (name.len() / 3).max(1))
        .min_by_key(|&(_, d)| d)
        .map(|(name, _)| name)
}

/// The optimal-string-alignment distance between `a` and `b`: insertions,
/// deletions, substitutions and swaps of two neighbours, each costing one.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // d[i][j]: distance between the first i chars of a and first j of b.
    let mut d = vec![vec![0; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::near_miss;

    const ROLES: &[&str] = &["input", "replier", "init"];

    #[test]
    fn typos_of_causim_attributes() {
        assert_eq!(near_miss("requried", &["required"]), Some("required"));
        assert_eq!(near_miss("Required", &["required"]), Some("required"));
        assert_eq!(near_miss("repiler", ROLES), Some("replier"));
        assert_eq!(near_miss("inptu", ROLES), Some("input"));
        assert_eq!(near_miss("int", ROLES), Some("init"));
    }

    #[test]
    fn other_attributes_are_left_alone() {
        for other in [
            "inline", "allow", "doc", "test", "cfg", "must_use", "input", "init",
        ] {
            assert_eq!(near_miss(other, ROLES), None, "{other}");
        }
        assert_eq!(near_miss("required", &["required"]), None);
        assert_eq!(near_miss("deprecated", &["required"]), None);
    }
}
