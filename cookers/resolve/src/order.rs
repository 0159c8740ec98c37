//! A stable topological order: items keep a base order except where a constraint says one
//! must come after another. Used wherever packs declare what they load after.

use std::collections::BTreeSet;

/// The order of items `0..after.len()` (their indices are the base order) where each item
/// comes after every item in `after[item]`, moving as little as it can: the next item is
/// always the earliest in base order whose constraints are met. When none is (a cycle),
/// the earliest remaining item is placed anyway and its cycle reported: its members fall
/// back to base order. Returns the order and the cycles broken, each in base order.
pub fn stable_topological(after: &[Vec<usize>]) -> (Vec<usize>, Vec<Vec<usize>>) {
    let n = after.len();
    let mut placed = vec![false; n];
    let mut order = Vec::with_capacity(n);
    let mut cycles: Vec<Vec<usize>> = Vec::new();
    while order.len() < n {
        let ready = (0..n).find(|&i| !placed[i] && after[i].iter().all(|&d| d >= n || placed[d]));
        let next = match ready {
            Some(i) => i,
            None => {
                let first = (0..n).find(|&i| !placed[i]).expect("items remain");
                let cycle = cycle_through(first, after, &placed);
                if !cycles.iter().any(|c| c.contains(&first)) {
                    cycles.push(cycle);
                }
                first
            }
        };
        placed[next] = true;
        order.push(next);
    }
    (order, cycles)
}

/// The unplaced items that both reach `start` and are reached from it through `after`:
/// its cycle, sorted.
fn cycle_through(start: usize, after: &[Vec<usize>], placed: &[bool]) -> Vec<usize> {
    let reach = |forward: bool| {
        let mut seen = BTreeSet::from([start]);
        let mut stack = vec![start];
        while let Some(i) = stack.pop() {
            let next: Vec<usize> = if forward {
                after[i].clone()
            } else {
                (0..after.len())
                    .filter(|&j| after[j].contains(&i))
                    .collect()
            };
            for j in next {
                if j < after.len() && !placed[j] && seen.insert(j) {
                    stack.push(j);
                }
            }
        }
        seen
    };
    let (from, to) = (reach(true), reach(false));
    from.intersection(&to).copied().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constraints_move_items_as_little_as_they_can() {
        // 0 must come after 2; the rest keep their order.
        let (order, cycles) = stable_topological(&[vec![2], vec![], vec![], vec![]]);
        assert_eq!(order, [1, 2, 0, 3]);
        assert!(cycles.is_empty());
    }

    #[test]
    fn a_cycle_is_broken_in_base_order_and_reported() {
        // 0 after 1, 1 after 0; 2 after 1.
        let (order, cycles) = stable_topological(&[vec![1], vec![0], vec![1]]);
        assert_eq!(order, [0, 1, 2]);
        assert_eq!(cycles, [vec![0, 1]]);
    }
}
