//! Chunk ids, package ids and the perfect hash a TOC is looked up through.

/// UE5 chunk types this pipeline writes or reads by name.
pub const EXPORT_BUNDLE_DATA: u8 = 1;
pub const BULK_DATA: u8 = 2;
pub const CONTAINER_HEADER: u8 = 6;

/// A 12-byte chunk id: package id u64 little-endian, chunk index u16 big-endian, one pad
/// byte, chunk type u8.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ChunkId(pub [u8; 12]);

impl ChunkId {
    pub fn new(package_id: u64, index: u16, kind: u8) -> ChunkId {
        let mut b = [0u8; 12];
        b[..8].copy_from_slice(&package_id.to_le_bytes());
        b[8..10].copy_from_slice(&index.to_be_bytes());
        b[11] = kind;
        ChunkId(b)
    }

    pub fn package_id(&self) -> u64 {
        u64::from_le_bytes(self.0[..8].try_into().expect("eight bytes"))
    }

    pub fn index(&self) -> u16 {
        u16::from_be_bytes([self.0[8], self.0[9]])
    }

    pub fn kind(&self) -> u8 {
        self.0[11]
    }
}

/// CityHash64 of the lower-cased name encoded UTF-16LE: package ids and container ids.
pub fn name_hash(name: &str) -> u64 {
    let utf16: Vec<u8> = name
        .to_lowercase()
        .encode_utf16()
        .flat_map(|u| u.to_le_bytes())
        .collect();
    cityhasher::hash::<u64>(&utf16)
}

/// The perfect hash of a chunk id: FNV-1a-style over the 12 bytes, starting at the seed
/// (sign-extended) or at the FNV offset basis for seed 0.
pub fn chunk_hash(seed: i32, id: &ChunkId) -> u64 {
    let mut h: u64 = if seed == 0 {
        0xcbf29ce484222325
    } else {
        seed as i64 as u64
    };
    for &b in &id.0 {
        h = h.wrapping_mul(0x100000001b3) ^ u64::from(b);
    }
    h
}

/// The entry index a reader finds `id` at, through the seeds alone (as the game does).
pub fn lookup(seeds: &[i32], entries: usize, id: &ChunkId) -> Option<usize> {
    if seeds.is_empty() || entries == 0 {
        return None;
    }
    let s = seeds[(chunk_hash(0, id) % seeds.len() as u64) as usize];
    if s < 0 {
        Some((-(s as i64) - 1) as usize)
    } else if s > 0 {
        Some((chunk_hash(s, id) % entries as u64) as usize)
    } else {
        None
    }
}

/// Solves the perfect hash for `ids`: the seeds, and the slot of each id (its entry index).
/// Starts from `n / 2` seeds and grows until every bucket is placed, since modulo a power
/// of two some id pairs no seed can separate. Nothing is ever left to an overflow list:
/// the game does not read it.
pub fn solve(ids: &[ChunkId]) -> crate::error::Result<(Vec<i32>, Vec<usize>)> {
    let n = ids.len();
    if n == 0 {
        return Ok((Vec::new(), Vec::new()));
    }
    let mut seed_count = (n / 2).max(1);
    loop {
        if let Some(solution) = try_solve(ids, seed_count) {
            return Ok(solution);
        }
        seed_count += 1;
        if seed_count > 4 * n + 64 {
            return Err(crate::IoStoreError::new(
                "perfect_hash",
                format!("no perfect hash found for {n} chunks"),
            ));
        }
    }
}

fn try_solve(ids: &[ChunkId], seed_count: usize) -> Option<(Vec<i32>, Vec<usize>)> {
    let n = ids.len();
    let mut buckets: Vec<Vec<usize>> = vec![Vec::new(); seed_count];
    for (i, id) in ids.iter().enumerate() {
        buckets[(chunk_hash(0, id) % seed_count as u64) as usize].push(i);
    }
    let mut order: Vec<usize> = (0..seed_count).collect();
    // Largest buckets first; ties by bucket index so the result is deterministic.
    order.sort_by_key(|&b| (std::cmp::Reverse(buckets[b].len()), b));
    let mut seeds = vec![0i32; seed_count];
    let mut slot_of = vec![usize::MAX; n];
    let mut taken = vec![false; n];
    // Slots are only ever taken, so the first free one only moves forward: searching for
    // it from the start for each single-chunk bucket was quadratic in the chunks.
    let mut first_free = 0;
    for &b in &order {
        let members = &buckets[b];
        match members.len() {
            0 => {}
            1 => {
                // Single-chunk buckets take free slots directly, as negative seeds.
                while taken.get(first_free) == Some(&true) {
                    first_free += 1;
                }
                let free = first_free;
                *taken.get_mut(free)? = true;
                slot_of[members[0]] = free;
                seeds[b] = -(free as i32) - 1;
            }
            _ => {
                let mut found = false;
                'seed: for seed in 1..=100_000 {
                    let mut slots = Vec::with_capacity(members.len());
                    for &m in members {
                        let s = (chunk_hash(seed, &ids[m]) % n as u64) as usize;
                        if taken[s] || slots.contains(&s) {
                            continue 'seed;
                        }
                        slots.push(s);
                    }
                    for (&m, &s) in members.iter().zip(&slots) {
                        taken[s] = true;
                        slot_of[m] = s;
                    }
                    seeds[b] = seed;
                    found = true;
                    break;
                }
                if !found {
                    return None;
                }
            }
        }
    }
    Some((seeds, slot_of))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixture_facts() {
        assert_eq!(
            name_hash("/Game/Fixtures/NNE/NNE_Identity"),
            0x162e79d98c2b3c2c
        );
        assert_eq!(
            name_hash("CUE4ParseFixtures-Minimal-Uncompressed-Windows"),
            0x8e31e2f0b7de84f2
        );
        let id = ChunkId::new(0x1122334455667788, 0x0102, 2);
        assert_eq!(
            id.0,
            [0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x01, 0x02, 0, 2]
        );
        assert_eq!(
            (id.package_id(), id.index(), id.kind()),
            (0x1122334455667788, 0x0102, 2)
        );
    }

    #[test]
    fn every_chunk_resolves_through_the_seeds_alone() {
        for n in (1..=64).chain([100, 128, 256, 1000]) {
            let ids: Vec<ChunkId> = (0..n)
                .map(|i| {
                    ChunkId::new(
                        name_hash(&format!("/Game/P{i}")),
                        (i % 3) as u16,
                        1 + (i % 2) as u8,
                    )
                })
                .collect();
            let (seeds, slots) = solve(&ids).unwrap();
            let mut seen = vec![false; n];
            for (i, id) in ids.iter().enumerate() {
                let at = lookup(&seeds, n, id).unwrap();
                assert_eq!(at, slots[i], "n={n} id {i}");
                assert!(!seen[at], "n={n}: two chunks share slot {at}");
                seen[at] = true;
            }
        }
    }
}
