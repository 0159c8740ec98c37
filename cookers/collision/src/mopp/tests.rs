use super::*;

fn grid(n: usize) -> Vec<([f64; 3], [f64; 3])> {
    (0..n)
        .map(|i| {
            let x = (i % 7) as f64;
            let y = (i / 7) as f64 * 0.5;
            ([x, y, 0.0], [x + 0.4, y + 0.3, 0.2 + i as f64 * 0.01])
        })
        .collect()
}

/// A small deterministic generator for the randomized tests.
struct Xorshift(u64);

impl Xorshift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn truth(boxes: &[([f64; 3], [f64; 3])], lo: [f64; 3], hi: [f64; 3]) -> Vec<u32> {
    (0..boxes.len() as u32)
        .filter(|&i| {
            (0..3).all(|a| boxes[i as usize].0[a] <= hi[a] && boxes[i as usize].1[a] >= lo[a])
        })
        .collect()
}

#[test]
fn box_queries_never_miss_and_stay_tight() {
    for n in [1, 2, 3, 31, 32, 33, 300, 5000] {
        let boxes = grid(n);
        let mopp = Mopp::build(&boxes).unwrap();
        let all = mopp.query_box([-1e9; 3], [1e9; 3]).unwrap();
        assert_eq!(all.len(), n, "every primitive is reachable");
        for (i, (lo, hi)) in boxes.iter().enumerate().step_by(7) {
            let got = mopp.query_box(*lo, *hi).unwrap();
            let want = truth(&boxes, *lo, *hi);
            assert!(
                want.iter().all(|w| got.contains(w)),
                "n={n} box {i}: missed one"
            );
            assert!(
                got.len() <= want.len() + 8,
                "n={n} box {i}: {} candidates for {} hits",
                got.len(),
                want.len()
            );
        }
        assert!(mopp.query_box([100.0; 3], [101.0; 3]).unwrap().is_empty());
        let stats = mopp.stats().unwrap();
        assert_eq!(stats.terminals, n);
        assert_eq!(stats.terminals_per_leaf, 1.0);
    }
}

#[test]
fn ray_queries_never_miss() {
    let boxes = grid(200);
    let mopp = Mopp::build(&boxes).unwrap();
    let o = [-1.0, 0.15, 0.1];
    let d = [1.0, 0.0, 0.0];
    let mut got = Vec::new();
    mopp.walk_ray(o, d, 100.0, |p, limit| {
        got.push(p);
        Ok(limit)
    })
    .unwrap();
    for (i, (lo, hi)) in boxes.iter().enumerate() {
        if lo[1] <= 0.15 && hi[1] >= 0.15 && lo[2] <= 0.1 && hi[2] >= 0.1 {
            assert!(got.contains(&(i as u32)), "missed {i}");
        }
    }
    assert!(got.len() < 40, "{} candidates", got.len());
}

#[test]
fn hostile_code_is_an_error_not_a_panic() {
    let mut mopp = Mopp::build(&grid(40)).unwrap();
    for cut in 0..mopp.code.len() {
        let m = Mopp {
            code: mopp.code[..cut].to_vec(),
            ..mopp.clone()
        };
        let _ = m.query_box([-1e9; 3], [1e9; 3]);
        let _ = m.stats();
    }
    mopp.code = vec![0x08];
    assert!(mopp.query_box([-1e9; 3], [1e9; 3]).is_err());
    assert!(mopp.stats().is_err());
    mopp.code = vec![
        0x04, 0, 0, 0, 0x04, 0, 0, 0, 0x04, 0, 0, 0, 0x04, 0, 0, 0, 0x04, 0, 0, 0, 0x30,
    ];
    assert!(mopp.query_box([-1e9; 3], [1e9; 3]).is_err());
}

#[test]
fn code_that_is_not_a_tree_is_refused() {
    // Sixty splits whose children are both the next split: a query would take 2^60 paths.
    let mut code: Vec<u8> = std::iter::repeat_n([0x10, 0xFF, 0x00, 0x00], 60)
        .flatten()
        .collect();
    code.push(0x30);
    let mopp = Mopp {
        origin: [0.0; 3],
        scale: 1.0,
        code,
    };
    let err = mopp.stats().unwrap_err().to_string();
    assert!(err.contains("not a tree"), "{err}");
}

#[test]
fn a_truncated_instruction_names_its_byte() {
    let mopp = Mopp {
        origin: [0.0; 3],
        scale: 1.0,
        code: vec![0x26, 0x00, 0xFF, 0x23, 0x00],
    };
    assert_eq!(
        mopp.stats().unwrap_err().to_string(),
        "the instruction at byte 3 runs past the end"
    );
}

#[test]
fn lopsided_primitives_keep_the_tree_shallow() {
    // Boxes at doubling distances: splitting by cost alone would peel them off one at a
    // time. The depth limit keeps the tree (and the encoder's recursion) shallow.
    let boxes: Vec<([f64; 3], [f64; 3])> = (0..3000)
        .map(|i| {
            let x = 1.003f64.powi(i) * (1.0 + f64::from(i % 7) * 1e-3);
            ([x, 0.0, 0.0], [x * 1.0001, 1.0, 1.0])
        })
        .collect();
    let mopp = Mopp::build(&boxes).unwrap();
    let stats = mopp.stats().unwrap();
    assert_eq!(stats.terminals, boxes.len());
    assert!(stats.max_depth <= 48 + 12, "depth {}", stats.max_depth);
}

#[test]
fn rays_never_miss_a_box_they_cross() {
    // Random boxes and rays in every direction, including ones along an axis: every box the
    // segment truly crosses must reach the visitor.
    let mut rng = Xorshift(0x9E37_79B9_7F4A_7C15);
    let mut unit = move || rng.unit();
    let boxes: Vec<([f64; 3], [f64; 3])> = (0..400)
        .map(|_| {
            let lo = [unit() * 10.0, unit() * 10.0, unit() * 4.0];
            let size = [unit() * 0.8, unit() * 0.8, unit() * 0.3];
            (lo, [lo[0] + size[0], lo[1] + size[1], lo[2] + size[2]])
        })
        .collect();
    let mopp = Mopp::build(&boxes).unwrap();
    for i in 0..300 {
        let origin = [unit() * 14.0 - 2.0, unit() * 14.0 - 2.0, unit() * 8.0 - 2.0];
        let mut dir = [unit() - 0.5, unit() - 0.5, unit() - 0.5];
        if i % 10 == 0 {
            dir = [0.0, 0.0, 0.0];
            dir[i % 3] = if i % 20 == 0 { 1.0 } else { -1.0 };
        }
        let max_t = 12.0;
        let mut got = Vec::new();
        mopp.walk_ray(origin, dir, max_t, |p, limit| {
            got.push(p);
            Ok(limit)
        })
        .unwrap();
        for (b, (lo, hi)) in boxes.iter().enumerate() {
            let (mut t0, mut t1) = (0.0f64, max_t);
            for a in 0..3 {
                if dir[a] == 0.0 {
                    if origin[a] < lo[a] || origin[a] > hi[a] {
                        t0 = f64::INFINITY;
                    }
                    continue;
                }
                let (ta, tb) = ((lo[a] - origin[a]) / dir[a], (hi[a] - origin[a]) / dir[a]);
                t0 = t0.max(ta.min(tb));
                t1 = t1.min(ta.max(tb));
            }
            if t0 <= t1 {
                assert!(got.contains(&(b as u32)), "ray {i} missed box {b}");
            }
        }
    }
}

#[test]
fn random_code_never_panics() {
    // Bytes drawn mostly from real opcodes, so the walks get deep into malformed code.
    let mut rng = Xorshift(0x2545_F491_4F6C_DD1D);
    let mut next = move || rng.next();
    const OPS: [u8; 16] = [
        0x00, 0x01, 0x04, 0x05, 0x07, 0x0b, 0x10, 0x12, 0x20, 0x23, 0x25, 0x26, 0x28, 0x31, 0x53,
        0x7f,
    ];
    for _ in 0..3000 {
        let len = (next() % 40) as usize;
        let code: Vec<u8> = (0..len)
            .map(|_| {
                let r = next();
                if r % 3 == 0 {
                    OPS[(r >> 8) as usize % OPS.len()]
                } else {
                    (r >> 16) as u8
                }
            })
            .collect();
        let mopp = Mopp {
            origin: [0.0; 3],
            scale: 1.0e5,
            code,
        };
        let _ = mopp.stats();
        let _ = mopp.query_box([-1e9; 3], [1e9; 3]);
        let _ = mopp.walk_ray([-1.0, 50.0, 50.0], [1.0, 0.01, 0.0], 1e9, |_, limit| {
            Ok(limit)
        });
        let _ = mopp.walk_ray([90.0, 90.0, 200.0], [0.0, 0.0, -1.0], 1e9, |_, _| Ok(0.5));
    }
}
