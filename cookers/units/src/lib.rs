//! Every change of units and axes the pipeline makes, in one place.
//!
//! | space | handedness | up | unit |
//! |---|---|---|---|
//! | glTF 2.0 source | right | +Y | metre |
//! | pack space (catalog, geometry JSON, lights) | right | +Z | metre |
//! | Unreal | left | +Z | centimetre, Y reflected |
//! | Blam tags | right | +Z | world unit = 3.048 m |
//!
//! The facts are recorded in `docs/units.md`. All arithmetic is f64; callers narrow to f32 only when writing.
//! Unreal's Y reflection mirrors space, so triangles converted to Unreal must have their
//! winding reversed to stay front-facing: [`unreal_triangle`] does both together.
//!
//! ```
//! use forge_units::{gltf_to_pack, pack_to_unreal};
//! assert_eq!(gltf_to_pack([1.0, 2.0, 3.0]), [1.0, -3.0, 2.0]);
//! assert_eq!(pack_to_unreal([1.0, 2.0, 0.0]), [100.0, -200.0, 0.0]);
//! ```

pub type Vec3 = [f64; 3];

pub const CENTIMETRES_PER_METRE: f64 = 100.0;
/// One Blam world unit is 10 feet.
pub const METRES_PER_WORLD_UNIT: f64 = 3.048;
/// For queries, where a conversion may be off by a rounding step but should not cost a
/// division per coordinate; cooking converts with [`pack_to_blam`], which divides.
pub const WORLD_UNITS_PER_METRE: f64 = 1.0 / METRES_PER_WORLD_UNIT;

/// glTF (Y up) to pack space (Z up): `(x, y, z) -> (x, -z, y)`. A rotation: winding stays.
pub fn gltf_to_pack(p: Vec3) -> Vec3 {
    [p[0], no_negative_zero(-p[2]), p[1]]
}

/// Pack space to glTF, the inverse of [`gltf_to_pack`].
pub fn pack_to_gltf(p: Vec3) -> Vec3 {
    [p[0], p[2], -p[1]]
}

/// Pack-space metres to Unreal centimetres with Y reflected. Use for positions and offsets.
pub fn pack_to_unreal(p: Vec3) -> Vec3 {
    [
        p[0] * CENTIMETRES_PER_METRE,
        no_negative_zero(-p[1] * CENTIMETRES_PER_METRE),
        p[2] * CENTIMETRES_PER_METRE,
    ]
}

/// Reflecting 0 gives -0; writers would print `-0.0`, so outputs keep one zero.
fn no_negative_zero(x: f64) -> f64 {
    x + 0.0
}

/// A pack-space direction (a normal) in Unreal axes: reflected, not scaled.
pub fn pack_direction_to_unreal(d: Vec3) -> Vec3 {
    [d[0], no_negative_zero(-d[1]), d[2]]
}

/// An Unreal direction (a normal) back in pack axes: the same reflection.
pub fn unreal_direction_to_pack(d: Vec3) -> Vec3 {
    pack_direction_to_unreal(d)
}

/// Unreal centimetres back to pack-space metres.
pub fn unreal_to_pack(p: Vec3) -> Vec3 {
    [
        p[0] / CENTIMETRES_PER_METRE,
        -p[1] / CENTIMETRES_PER_METRE,
        p[2] / CENTIMETRES_PER_METRE,
    ]
}

/// A pack-space triangle's indices in the order that keeps it front-facing in Unreal.
pub fn unreal_triangle(t: [u32; 3]) -> [u32; 3] {
    [t[0], t[2], t[1]]
}

/// Pack-space metres to Blam world units (same axes).
pub fn pack_to_blam(p: Vec3) -> Vec3 {
    p.map(|c| c / METRES_PER_WORLD_UNIT)
}

pub fn blam_to_pack(p: Vec3) -> Vec3 {
    p.map(|c| c * METRES_PER_WORLD_UNIT)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Vec3, b: Vec3) -> bool {
        (0..3).all(|i| (a[i] - b[i]).abs() < 1e-12)
    }

    fn cross(a: Vec3, b: Vec3) -> Vec3 {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    }

    fn sub(a: Vec3, b: Vec3) -> Vec3 {
        [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
    }

    #[test]
    fn gltf_up_is_pack_up() {
        assert_eq!(gltf_to_pack([0.0, 1.0, 0.0]), [0.0, 0.0, 1.0]);
        // glTF's front (+Z) faces pack-space -Y.
        assert_eq!(gltf_to_pack([0.0, 0.0, 1.0]), [0.0, -1.0, 0.0]);
        let p = [1.5, -2.25, 3.0];
        assert_eq!(pack_to_gltf(gltf_to_pack(p)), p);
    }

    #[test]
    fn seed_light_offsets() {
        assert_eq!(pack_to_unreal([0.0, 0.0, 3.1]), [0.0, 0.0, 310.0]);
        assert_eq!(pack_to_unreal([1.0, 2.0, 0.0]), [100.0, -200.0, 0.0]);
        assert!(close(
            unreal_to_pack(pack_to_unreal([0.3, -7.0, 2.5])),
            [0.3, -7.0, 2.5]
        ));
    }

    #[test]
    fn reflection_keeps_faces_front_facing() {
        // A counter-clockwise triangle seen from +Z: its winding normal is up.
        let tri = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        let n_pack = cross(sub(tri[1], tri[0]), sub(tri[2], tri[0]));
        let ue = tri.map(pack_to_unreal);
        // Without reordering, the reflection turns the winding normal against the
        // converted normal: the face would be culled from the front.
        let flipped = cross(sub(ue[1], ue[0]), sub(ue[2], ue[0]));
        let expected = pack_direction_to_unreal(n_pack);
        assert!(flipped[2] * expected[2] < 0.0);
        let [a, b, c] = unreal_triangle([0, 1, 2]).map(|i| ue[i as usize]);
        let kept = cross(sub(b, a), sub(c, a));
        assert!(kept[2] * expected[2] > 0.0);
    }

    #[test]
    fn reflection_never_makes_negative_zero() {
        assert!(pack_to_unreal([0.0, 0.0, 0.0])[1].is_sign_positive());
        assert!(gltf_to_pack([0.0, 0.0, 0.0])[1].is_sign_positive());
        assert!(pack_direction_to_unreal([0.0, 0.0, 1.0])[1].is_sign_positive());
    }

    #[test]
    fn world_units() {
        assert!(close(pack_to_blam([3.048, 0.0, 6.096]), [1.0, 0.0, 2.0]));
        assert!(close(
            blam_to_pack(pack_to_blam([4.0, -4.0, 0.5])),
            [4.0, -4.0, 0.5]
        ));
    }
}
