//! A stable topological order: items keep a base order except where a constraint says one
//! must come after another. Used wherever packs declare what they load after.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The order of items `0..after.len()` (their indices are the base order) where each item
/// comes after every item in `after[item]`, moving as little as it can: the next item is
/// always the earliest in base order whose constraints are met. Items that wait on each
/// other (a cycle) are placed together, in base order, where the earliest of them would
/// go, and the cycle is reported: its members fall back to base order. Returns the order
/// and the cycles broken, each in base order. Linear in items and constraints (with a
/// logarithm for the choice of the earliest ready item).
pub fn stable_topological(after: &[Vec<usize>]) -> (Vec<usize>, Vec<Vec<usize>>) {
    let n = after.len();
    let groups = cycles_and_singles(after);
    let mut group_of = vec![0; n];
    for (g, members) in groups.iter().enumerate() {
        for &m in members {
            group_of[m] = g;
        }
    }
    let mut waiting = vec![0usize; groups.len()];
    let mut released: Vec<Vec<usize>> = vec![Vec::new(); groups.len()];
    for (item, deps) in after.iter().enumerate() {
        for &dep in deps.iter().filter(|&&d| d < n) {
            let (first, then) = (group_of[dep], group_of[item]);
            if first != then {
                released[first].push(then);
                waiting[then] += 1;
            }
        }
    }
    // Each group by its earliest member: a group's members are sorted.
    let mut ready: BinaryHeap<Reverse<(usize, usize)>> = (0..groups.len())
        .filter(|&g| waiting[g] == 0)
        .map(|g| Reverse((groups[g][0], g)))
        .collect();
    let mut order = Vec::with_capacity(n);
    while let Some(Reverse((_, g))) = ready.pop() {
        order.extend_from_slice(&groups[g]);
        for &then in &released[g] {
            waiting[then] -= 1;
            if waiting[then] == 0 {
                ready.push(Reverse((groups[then][0], then)));
            }
        }
    }
    let mut cycles: Vec<Vec<usize>> = groups
        .into_iter()
        .filter(|g| g.len() > 1 || after[g[0]].contains(&g[0]))
        .collect();
    cycles.sort();
    (order, cycles)
}

/// The strongly connected components of the constraint graph (Tarjan's, with an explicit
/// stack so a chain of any length fits), each sorted: a cycle, or a single item.
fn cycles_and_singles(after: &[Vec<usize>]) -> Vec<Vec<usize>> {
    const UNSEEN: usize = usize::MAX;
    let n = after.len();
    let (mut index, mut low) = (vec![UNSEEN; n], vec![0; n]);
    let mut on_stack = vec![false; n];
    let (mut stack, mut groups, mut next) = (Vec::new(), Vec::new(), 0);
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        let mut calls = vec![(root, 0usize)];
        (index[root], low[root]) = (next, next);
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&(v, edge)) = calls.last() {
            if let Some(&w) = after[v].get(edge) {
                calls.last_mut().expect("a call is open").1 += 1;
                if w >= n {
                    continue;
                }
                if index[w] == UNSEEN {
                    (index[w], low[w]) = (next, next);
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    calls.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(u, _)) = calls.last() {
                low[u] = low[u].min(low[v]);
            }
            if low[v] == index[v] {
                let mut group = Vec::new();
                loop {
                    let w = stack.pop().expect("v is on the stack");
                    on_stack[w] = false;
                    group.push(w);
                    if w == v {
                        break;
                    }
                }
                group.sort_unstable();
                groups.push(group);
            }
        }
    }
    groups
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
    fn a_cycles_members_keep_their_base_places() {
        // a, b and c wait on each other, d and e are free: a, b, c, d, e.
        let (order, cycles) = stable_topological(&[vec![], vec![2], vec![1], vec![], vec![]]);
        assert_eq!(order, [0, 1, 2, 3, 4]);
        assert_eq!(cycles, [vec![1, 2]]);
        // A cycle waits as one for what any member waits on.
        let (order, _) = stable_topological(&[vec![1], vec![0, 3], vec![], vec![]]);
        assert_eq!(order, [2, 3, 0, 1]);
    }

    #[test]
    fn a_chain_of_ten_thousand_is_ordered() {
        let n = 10_000;
        // Each item waits on the next, so the order is the base order reversed.
        let after: Vec<Vec<usize>> = (0..n)
            .map(|i| if i + 1 < n { vec![i + 1] } else { vec![] })
            .collect();
        let (order, cycles) = stable_topological(&after);
        assert!(cycles.is_empty());
        assert_eq!(order.first(), Some(&(n - 1)));
        assert_eq!(order.len(), n);
    }

    #[test]
    fn a_cycle_is_broken_in_base_order_and_reported() {
        // 0 after 1, 1 after 0; 2 after 1.
        let (order, cycles) = stable_topological(&[vec![1], vec![0], vec![1]]);
        assert_eq!(order, [0, 1, 2]);
        assert_eq!(cycles, [vec![0, 1]]);
    }
}
