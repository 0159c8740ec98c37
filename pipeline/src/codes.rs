//! Every error and warning code the pipeline prints, declared once: its area, its usual
//! severity, the exit class it makes, and what it means. `mjolnir errors` prints this
//! table, `docs/errors.md` is generated from it (a test keeps the two equal), and a test
//! scans the sources so that a code cannot be added without a line here.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Error,
    Warning,
}

/// What a command exits with when the code is an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Exit {
    /// 1: the inputs have errors; fix what the finding names and run again.
    Input,
    /// 2: the command could not run (bad flags or settings, a locked folder, I/O).
    Run,
}

impl Exit {
    pub fn status(self) -> i32 {
        match self {
            Exit::Input => 1,
            Exit::Run => 2,
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct Code {
    pub code: &'static str,
    pub area: &'static str,
    pub level: Level,
    pub exit: Exit,
    pub meaning: &'static str,
}

/// The code an exit-2 error without one of its own is reported under.
pub const COULD_NOT_RUN: &str = "could_not_run";

pub fn find(code: &str) -> Option<Code> {
    all().find(|c| c.code == code)
}

pub fn all() -> impl Iterator<Item = Code> {
    AREAS.iter().flat_map(|(area, codes)| {
        codes.iter().map(move |&(code, level, exit, meaning)| Code {
            code,
            area,
            level,
            exit,
            meaning,
        })
    })
}

type Row = (&'static str, Level, Exit, &'static str);

use Exit::{Input, Run};
use Level::{Error, Warning};

/// The areas in the order a pack author meets them, each with its codes.
pub const AREAS: &[(&str, &[Row])] = &[
    ("Commands and configuration", COMMANDS),
    ("Reading files", FILES),
    ("The pack contract", CONTRACT),
    ("Updating a pack", COMPAT),
    ("Models", MODELS),
    ("Collision", COLLISION),
    ("Checks", CHECKS),
    ("Donors and Unreal packages", UNREAL),
    ("IoStore containers", IOSTORE),
    ("The cook and its cache", COOK),
    ("Releases and the Hub's scan", RELEASES),
    ("ZIP archives", ZIPS),
    ("Maps", MAPS),
    ("The launcher", LAUNCHER),
    ("Asset manifests", ASSET_MANIFESTS),
    ("Asset reviews", ASSET_REVIEWS),
];

#[rustfmt::skip]
const COMMANDS: &[Row] = &[
    (COULD_NOT_RUN, Error, Run, "the command could not run, and the message says why (an I/O error, say); it has no more specific code"),
    ("unknown_code", Error, Run, "`mjolnir errors` was asked about a code this pipeline does not have"),
    ("no_config", Error, Run, "there is no pipeline.toml where the command looked; pass --config or start a pack with `mjolnir forge new`"),
    ("duplicate_pack", Error, Input, "a pack is listed twice (in pipeline.toml, or in a level's pack list)"),
    ("too_many_jobs", Error, Run, "more jobs were asked for than the machine has cores allow"),
    ("bad_render_size", Error, Run, "[render] size is outside the pixel range previews are drawn at"),
    ("bad_sheet_size", Error, Run, "[render] sheet_size is outside the contact sheet's pixel range"),
    ("bad_turntable", Error, Run, "[render] turntable asks for more views than a turntable holds"),
    ("bad_overlay", Error, Run, "an overlay other than \"collision\" or \"checks\" was asked for"),
    ("bad_donor_path", Error, Run, "a donor is not a package path like /Game/Props/SM_Crate"),
    ("incomplete_donors", Error, Run, "donors need the Paks folder, the static mesh and the actor together"),
    ("cache_writer_key", Error, Run, "the remote cache's writer key cannot be read"),
    ("cache_trusted_writer", Error, Run, "[cache] trusted_writers holds something that is not a hex Ed25519 public key"),
    ("remote_cache_url", Error, Run, "the remote cache is not an http:// or https:// URL"),
    ("remote_cache_credentials", Error, Run, "the remote cache URL holds credentials; they belong in the environment or netrc"),
    ("build_locked", Error, Run, "another cook is using the build folder; wait for it to finish"),
    ("symlinked_output", Error, Run, "a set folder in the build folder is a symbolic link, which the cook will not write through"),
    ("bad_pack_id", Error, Input, "a pack id is not lower-case letters, digits and `-`"),
    ("pack_exists", Error, Run, "`mjolnir forge new` would write over a folder that exists"),
    ("missing_model", Error, Input, "a block has no .gltf, .glb or .blend model in source/models/"),
    ("missing_change_row", Error, Input, "changes.json has no bloc row for a new block's crate"),
    ("two_models", Error, Input, "a block has more than one model (.gltf, .glb, .blend) in source/models/"),
    ("suggest_incomplete", Warning, Input, "forge suggest found no walkable top or no join on a piece, and says why"),
    ("no_model_hulls", Error, Input, "a model has no UCX_ collision hulls to suggest a geometry entry from"),
    ("unknown_geometry_field", Error, Input, "`forge suggest --replace` names a field a geometry entry does not have"),
    ("paks_missing", Error, Run, "the Paks folder cannot be read"),
];

#[rustfmt::skip]
const FILES: &[Row] = &[
    ("not_found", Error, Input, "a file the command needs does not exist"),
    ("not_a_file", Error, Input, "a path names a folder, a device or a FIFO where a regular file belongs"),
    ("too_large", Error, Input, "a file is larger than the limit for its kind, and is refused rather than cut"),
    ("not_utf8", Error, Input, "a text file is not UTF-8"),
    ("not_json", Error, Input, "a file is not valid JSON"),
    ("duplicate_key", Error, Input, "a JSON object has the same key twice, and readers disagree on which copy counts"),
    ("missing_source", Error, Input, "a source file the cook needs is missing"),
    ("symlinked_source", Error, Input, "a source file is a symbolic link; sources are regular files inside the pack"),
    ("source_changed", Error, Input, "a source changed while the cook read it; run the cook again"),
    ("missing_buffer", Error, Input, "a glTF names a .bin buffer that is not beside it"),
    ("texture_dropped", Warning, Input, "a model's textures are not cooked: the game draws the donor's materials"),
];

#[rustfmt::skip]
const CONTRACT: &[Row] = &[
    ("bad_schema_version", Error, Input, "mjolnir.json's schema_version is not the one this pipeline writes"),
    ("schema_too_new", Error, Input, "the pack needs a newer MJOLNIR to read its schema_version"),
    ("unknown_feature", Error, Input, "the pack requires a feature this MJOLNIR does not know"),
    ("wrong_type", Error, Input, "a field holds the wrong JSON type"),
    ("wrong_length", Error, Input, "a list of numbers has the wrong length"),
    ("control_character", Error, Input, "a name holds a control or text-direction character"),
    ("bad_type", Error, Input, "mjolnir.json's type is not forge_pack or map"),
    ("bad_slug", Error, Input, "a Hub slug is not lower-case letters, digits and `-`"),
    ("pack_id_not_slug", Error, Input, "the pack id is not a Hub slug"),
    ("pack_id_mismatch", Error, Input, "pipeline.toml builds a pack id from a folder whose catalog names another"),
    ("self_dependency", Error, Input, "a pack depends on itself"),
    ("bad_name", Error, Input, "a display name is empty, too long or not printable"),
    ("bad_version", Error, Input, "a version is not an exact SemVer version such as 0.2.0"),
    ("version_build_metadata", Warning, Input, "a version carries +build metadata, which the Hub refuses"),
    ("version_too_long", Error, Input, "a version is longer than the Hub stores"),
    ("bad_dep_slug", Error, Input, "a dependency's slug is not a Hub slug"),
    ("duplicate_dep", Error, Input, "a dependency is listed twice"),
    ("bad_dep_range", Error, Input, "a dependency's range is not a SemVer requirement such as ^1.2.3"),
    ("block_count", Error, Input, "a catalog holds no blocks, or more than a catalog may"),
    ("bad_category", Error, Input, "a block's category is not a valid name"),
    ("bad_tag", Error, Input, "a block's tag is not a valid tag path"),
    ("kind_not_supported", Error, Input, "an entry kind is reserved for a later release"),
    ("unknown_kind", Error, Input, "an entry kind is unknown"),
    ("bad_lift", Error, Input, "a lift's travel is not a positive distance"),
    ("bad_door", Error, Input, "a door names no aperture of its geometry"),
    ("bad_surfaces", Error, Input, "a block lists no surfaces, or too many"),
    ("bad_dimensions", Error, Input, "a block's dimensions are not positive numbers of metres"),
    ("bad_snap", Error, Input, "a block's snap is not a positive number of metres"),
    ("bad_geometry_value", Error, Input, "a geometry number is outside the range it may take"),
    ("diagnostic_source", Error, Input, "a source catalog is marked diagnostic; only reduced --only builds are"),
    ("geometry_pack_mismatch", Error, Input, "geometry.json names another pack than mjolnir.json"),
    ("duplicate_id", Error, Input, "a block id is used twice"),
    ("unknown_block", Error, Input, "a name refers to a block the catalog does not have"),
    ("missing_geometry", Error, Input, "a catalog block has no geometry entry and no model hulls to derive one from"),
    ("bad_id", Error, Input, "an id is not a valid id of its kind"),
    ("duplicate_name", Error, Input, "a name is used twice in one list"),
    ("bad_origin", Error, Input, "an origin convention is not one the contract knows"),
    ("hull_count", Error, Input, "a block has no collision hulls, or more than a block may"),
    ("hull_points", Error, Input, "a hull has fewer than 4 points, or more than a hull may"),
    ("missing_connectors", Error, Input, "an entry_floor piece declares no entry and exit connectors"),
    ("door_aperture_missing", Error, Input, "a door piece's geometry declares no aperture"),
    ("bad_aperture", Error, Input, "an aperture is not a rectangle inside the block"),
    ("bad_support", Error, Input, "a support point lies outside the block's footprint"),
    ("bad_join", Error, Input, "a join is not on one of the block's edges"),
    ("bad_waiver", Error, Input, "a waiver has a blank reason or reviewer"),
];

#[rustfmt::skip]
const COMPAT: &[Row] = &[
    ("not_a_forge_pack", Error, Input, "a release compared is not a Forge pack"),
    ("different_pack", Error, Input, "the two releases are of different packs"),
    ("version_reused", Error, Input, "a published version is released again with other contents"),
    ("not_newer", Error, Input, "the new release's version is not newer than the old one's"),
    ("new_line", Warning, Input, "the new release starts a new major line, which existing maps do not take"),
    ("entry_dropped", Error, Input, "a release in the same line drops a block"),
    ("kind_changed", Error, Input, "a block changed kind"),
    ("dimensions_changed", Error, Input, "a block changed size, which would resize existing builds"),
    ("snap_changed", Error, Input, "a block changed its snap"),
    ("origin_moved", Warning, Input, "a block's origin convention or its place relative to it changed"),
    ("join_removed", Warning, Input, "a block no longer declares a join"),
    ("join_moved", Warning, Input, "a block's join moved"),
];

#[rustfmt::skip]
const MODELS: &[Row] = &[
    ("gltf_parse", Error, Input, "a model is not a readable glTF or GLB file"),
    ("gltf_invalid", Error, Input, "a model refers to an accessor, view or buffer it does not have"),
    ("view_script", Error, Input, "a 3D view's page script is not the one call with a model and its rays that the cook writes"),
    ("gltf_missing_buffer", Error, Input, "a GLB has no BIN chunk, but a buffer refers to it"),
    ("gltf_bad_uri", Error, Input, "a buffer's data URI is not base64"),
    ("gltf_truncated_buffer", Error, Input, "a buffer is shorter than it declares"),
    ("gltf_bad_accessor", Error, Input, "an accessor cannot be read as the attribute it is used for"),
    ("gltf_not_triangles", Error, Input, "a primitive is points or lines; export faces as triangles"),
    ("gltf_no_positions", Error, Input, "a primitive has no POSITION attribute"),
    ("gltf_too_large", Error, Input, "a model has more vertices or triangles than a Forge piece may"),
    ("gltf_index_out_of_range", Error, Input, "an index names a vertex past the end of its primitive"),
    ("gltf_nan_position", Error, Input, "a vertex position is not a finite number"),
    ("gltf_nan_attribute", Error, Input, "a normal or UV is not a finite number"),
    ("gltf_no_triangles", Error, Input, "the scene has no triangles to cook"),
    ("gltf_zero_area", Error, Input, "every triangle has zero area"),
    ("blender_export", Error, Input, "Blender could not export a .blend source to glTF"),
    ("mesh_empty", Error, Input, "the cooked mesh has no vertices"),
    ("mesh_out_of_range", Error, Input, "a vertex is too far away to store in centimetres"),
];

#[rustfmt::skip]
const COLLISION: &[Row] = &[
    ("hull_not_finite", Error, Input, "a hull point is not a finite number"),
    ("hull_duplicate_point", Error, Input, "a hull lists the same point twice"),
    ("hull_not_convex", Error, Input, "a hull point lies inside the others: the shape is not convex"),
    ("hull_nearly_coplanar", Error, Input, "a hull's corners lie within micrometres of a face, so its faces do not close"),
    ("hull_degenerate", Error, Input, "a hull's points all lie on one plane"),
    ("hull_sliver", Error, Input, "a hull is thinner than 1 mm across a face"),
    ("hull_too_many_vertices", Error, Input, "a hull has more vertices than a Havok polyhedron holds"),
    ("hull_too_many_faces", Error, Input, "a hull has more faces than a Havok polyhedron holds"),
    ("hull_not_closed", Error, Input, "a hull's surface is not closed"),
    ("bsp_too_large", Error, Input, "a hull has too many faces or vertices for the BSP tables"),
    ("mopp_empty", Error, Input, "there are no collision surfaces to build the MOPP over"),
    ("bad_hull", Error, Input, "a hull's points do not make a solid convex shape the checks can use"),
];

#[rustfmt::skip]
const CHECKS: &[Row] = &[
    ("aperture_blocked", Error, Input, "a ray through a declared opening hits the collision"),
    ("aperture_blocked_visual", Error, Input, "an opening is open in the collision but closed in the visual mesh"),
    ("aperture_misplaced", Error, Input, "a ray just outside an opening passes, so the opening is not where it is declared"),
    ("support_missing", Error, Input, "there is nothing to stand on at a declared support point"),
    ("support_height", Error, Input, "the surface at a support point is not at its declared height"),
    ("support_too_steep", Error, Input, "the surface at a support point is steeper than a player can walk"),
    ("support_blocked", Error, Input, "a player standing at a support point would be inside a hull"),
    ("size_mismatch", Error, Input, "the collision's or mesh's size is not the catalog's"),
    ("origin_mismatch", Error, Input, "a bottom_centre piece's footprint centre or bottom is not at the origin"),
    ("join_height", Error, Input, "nothing is at a declared join's height on its edge"),
    ("connector_step", Error, Input, "there is no road surface under a connector's frame"),
    ("connector_position", Error, Input, "no deck end is behind a connector's frame"),
    ("connector_heading", Error, Input, "a connector's heading is off the deck's end"),
    ("engines_disagree", Error, Input, "the BSP and the MOPP answer a ray differently"),
    ("model_in_centimetres", Error, Input, "the visual mesh is 100 times its declared size: the model was exported in centimetres"),
    ("model_z_up", Error, Input, "the visual mesh has height and depth swapped: the model was exported Z-up"),
];

#[rustfmt::skip]
const UNREAL: &[Row] = &[
    ("donor_not_found", Error, Run, "no container in the Paks folder holds a configured donor"),
    ("donor_too_large", Error, Run, "a donor's blocks span more bytes than a package can"),
    ("donor_compressed", Error, Run, "a donor is stored with a compression this pipeline cannot undo"),
    ("donor_changed", Error, Run, "an extracted donor no longer matches its container's hash; cook again to extract it afresh"),
    ("donor_misnamed", Error, Run, "an extracted donor holds another package than its path names"),
    ("donor_wrong_class", Error, Input, "a donor has no export of the class its role needs"),
    ("donor_not_static_mesh", Error, Input, "the donor static mesh package has no StaticMesh export"),
    ("donor_not_blueprint", Error, Input, "the donor actor package has no BlueprintGeneratedClass export"),
    ("donor_no_mesh_component", Error, Input, "the donor Blueprint has no StaticMeshComponent"),
    ("donor_mesh_reference", Error, Input, "the donor's StaticMeshComponent names no imported mesh"),
    ("donor_material", Error, Input, "a donor material package has no MaterialInstanceConstant export"),
    ("donor_material_missing", Error, Input, "a glass or portal surface needs a donor material instance, and none is configured"),
    ("donor_export_missing", Error, Input, "a donor lacks the export the pipeline writes over"),
    ("donor_import", Error, Input, "a donor's import is not a package import"),
    ("actor_class_path", Error, Input, "an actor class path has no class name"),
    ("unknown_surface_slot", Error, Input, "a surface names a material slot the mesh does not have"),
    ("surface_slot_shared", Error, Input, "a styled section would share the donor mesh's last slot with others"),
    ("package_read", Error, Input, "a zen package cannot be read"),
    ("package_summary", Error, Input, "a zen package's summary is damaged"),
    ("package_bulk_data", Error, Input, "a zen package's bulk data map is not whole entries"),
    ("package_offsets", Error, Input, "a zen package's tables are not whole records inside the package"),
    ("package_header_size", Error, Input, "a zen package's header does not end where it says"),
    ("package_export_bundle", Error, Input, "a zen package's export bundle names an export it does not have"),
    ("package_name_hash_version", Error, Input, "a zen package's name hashes are of an unknown version"),
    ("package_name_hash", Error, Input, "a name's stored hash is not its CityHash64"),
    ("package_name_batch", Error, Input, "a zen package's name strings are not the size declared"),
    ("package_export_size", Error, Input, "an export runs past the package's end"),
    ("package_tag", Error, Input, "a package does not end with the package tag"),
    ("package_properties", Error, Input, "a property list is longer than a package holds"),
    ("package_no_none", Error, Input, "a package's name map has no None, so it holds no properties"),
    ("package_static_mesh", Error, Input, "a StaticMesh export cannot be read"),
    ("script_objects", Error, Input, "the global container's script objects refer past their table"),
    ("container_header", Error, Input, "a container header cannot be read"),
    ("namespace_violation", Error, Input, "a package of the pack lies, or imports, outside the pack's namespace"),
];

#[rustfmt::skip]
const IOSTORE: &[Row] = &[
    ("utoc_magic", Error, Input, "the file is not a .utoc"),
    ("utoc_version", Error, Input, "the TOC is of a version this reader does not read"),
    ("utoc_encrypted", Error, Input, "the container is encrypted"),
    ("utoc_truncated", Error, Input, "the TOC ends inside one of its tables"),
    ("utoc_header", Error, Input, "the TOC's header is damaged"),
    ("utoc_entry", Error, Input, "a chunk entry does not exist"),
    ("utoc_offset", Error, Input, "a chunk reaches past the compression blocks"),
    ("utoc_block_size", Error, Input, "a block inflates to more than the block size"),
    ("utoc_overlapping_blocks", Error, Input, "two compressed blocks share bytes of the .ucas"),
    ("utoc_overlapping_chunks", Error, Input, "the chunks declare more bytes than the blocks hold"),
    ("utoc_method_name", Error, Input, "a compression method's name is not NUL-padded text"),
    ("utoc_signature", Error, Input, "the signature section's size is negative"),
    ("utoc_trailing", Error, Input, "bytes follow the TOC's last table"),
    ("utoc_directory", Error, Input, "the directory index is truncated"),
    ("utoc_count_overflow", Error, Input, "the directory index claims more records than it holds"),
    ("utoc_directory_string", Error, Input, "a directory index string is damaged"),
    ("utoc_directory_cycle", Error, Input, "the directory index has a cycle"),
    ("ucas_out_of_range", Error, Input, "a block lies past the end of the .ucas"),
    ("ucas_zlib", Error, Input, "a block does not inflate"),
    ("ucas_oodle", Error, Input, "an Oodle block does not decode to the size its TOC declares"),
    ("ucas_oodle_hash", Error, Input, "an Oodle chunk decodes to bytes whose hash is not its TOC's"),
    ("ucas_hash", Error, Input, "a chunk reads as bytes whose hash is not its TOC's"),
    ("packed_chunks", Error, Run, "a block's packed container chunks (FPCK), or its index that holds them (FBLK), do not read"),
    ("block_group", Error, Run, "a group of a large set's blocks' files (FGRP) does not read, or does not hold its blocks in order"),
    ("chunk_duplicate", Error, Input, "a chunk is added to a container twice"),
    ("container_too_large", Error, Input, "the container exceeds the TOC's address space"),
    ("perfect_hash", Error, Input, "no perfect hash was found for the container's chunks"),
];

#[rustfmt::skip]
const COOK: &[Row] = &[
    ("cache_corrupt", Error, Run, "a cached output failed its check; the cook removes it and runs again"),
    ("remote_cache_down", Warning, Input, "the remote cache did not answer in time; the cook goes on without it"),
    ("remote_cache_refused", Warning, Input, "a remote cache entry failed a check (signature, names, sizes or hashes) and the step was cooked locally"),
    ("cooker_panicked", Error, Input, "a cooker crashed; this is a bug in the pipeline, please report it with the inputs"),
    ("bad_output_name", Error, Input, "a cooker made an output it may not; this is a bug in the pipeline"),
    ("bad_splice", Error, Input, "a cooker described a spliced output (a container's .ucas) with pieces its inputs do not hold; this is a bug in the pipeline"),
    ("cache_write", Error, Input, "the cache could not store a step's outputs"),
    ("bad_params", Error, Input, "a step's parameters cannot be read; this is a bug in the pipeline"),
    ("bad_intermediate", Error, Input, "a step's input from another step cannot be read; this is a bug in the pipeline"),
    ("derive_failed", Error, Input, "an asset manifest's derive rule failed on its sources"),
    ("derive_too_large", Error, Input, "a derive rule would decode or make an image of more pixels than its budget"),
];

#[rustfmt::skip]
const RELEASES: &[Row] = &[
    ("bad_manifest", Error, Input, "a release's mjolnir.json cannot be read"),
    ("no_content", Error, Input, "there is no container to release"),
    ("path_traversal", Error, Input, "a container file does not sit directly in the content folder"),
    ("orphan_ucas", Error, Input, "a .ucas has no .utoc beside it"),
    ("orphan_utoc", Error, Input, "a .utoc has no .ucas beside it"),
    ("forbidden_file", Error, Input, "the content folder holds something other than containers"),
    ("map_has_catalog", Error, Input, "a map release carries a forge_pack catalog"),
    ("missing_slug", Error, Input, "a map release names no Hub slug"),
    ("build_metadata", Error, Input, "a release's version carries +build metadata, which the Hub refuses"),
    ("diagnostic_build", Error, Input, "a reduced --only build is published as the full set"),
    ("encrypted_container", Error, Input, "a release's container is encrypted"),
    ("bad_container", Error, Input, "a release's container cannot be read"),
    ("foreign_container", Error, Input, "a release carries another pack's container"),
    ("not_installable", Error, Input, "a package in the release is not one the game can load"),
    ("map_holds_pack_packages", Error, Input, "a map release carries a Forge pack's packages; it depends on the pack instead"),
    ("ghost_block", Error, Input, "a catalog block has no crate in the containers"),
    ("unlisted_member", Error, Input, "a release holds a file releases do not carry"),
    ("no_manifest", Error, Input, "the archive has no mjolnir.json at its root"),
    ("version_mismatch", Error, Input, "the manifest's version is not the release's"),
    ("no_changes", Warning, Input, "the archive has no changes.json declaring what it changes"),
    ("bad_changes", Error, Input, "changes.json is too large or not what a change list holds"),
    ("bad_signature", Error, Input, "the signature does not verify"),
    ("foreign_signature", Error, Input, "the release is signed by another key than the author's"),
    ("unsigned", Error, Input, "the release has no signature.json; the Hub takes only signed releases (a warning with --allow-unsigned)"),
];

#[rustfmt::skip]
const ZIPS: &[Row] = &[
    ("bad_zip", Error, Input, "a file is not a readable ZIP archive"),
    ("zip_too_many_members", Error, Input, "an archive holds more members than its kind may"),
    ("zip_member_too_large", Error, Input, "a member inflates past its limit, and is refused rather than cut"),
    ("zip_too_large", Error, Input, "an archive inflates past its total budget"),
    ("duplicate_member", Error, Input, "an archive holds a name twice (names equal but for case count)"),
    ("bad_member_name", Error, Input, "a member's name is not a plain relative path"),
    ("symlink_member", Error, Input, "an archive holds a link"),
];

#[rustfmt::skip]
const MAPS: &[Row] = &[
    ("bad_level", Error, Input, "a level is not of the level format"),
    ("not_map_variant", Error, Input, "a level's map variant is not one the game has"),
    ("layout_outside", Error, Input, "a level's layout is not a file in the level's folder"),
    ("duplicate_palette_entry", Error, Input, "a standard palette entry is listed twice"),
    ("canvas_override", Error, Input, "a level overrides a canvas setting it may not"),
    ("too_many_packs", Error, Input, "a level names more packs than a map takes"),
    ("too_many_custom_references", Error, Input, "a level has more custom references than a map takes"),
    ("palette_full", Error, Input, "the standard and custom entries overfill the engine's palette"),
    ("duplicate_block", Error, Input, "a level lists a block twice"),
    ("block_tag_mismatch", Error, Input, "a block's tag in the level is not its tag in the pack"),
    ("missing_crate", Error, Input, "no container in the Paks holds a block's crate"),
    ("unknown_pack", Error, Input, "a level, or `--pack`, names a pack that is not there"),
    ("pack_version_mismatch", Error, Input, "a pack's release is not the version the level names"),
    ("expect_objects", Error, Input, "the layout's object count is not the one the level states"),
    ("expect_count", Error, Input, "the layout's count of a block is not the one the level states"),
    ("deck_height", Error, Input, "a deck does not top out at the height the level states"),
    ("bad_layout", Error, Input, "a layout is not of the layout format"),
    ("over_budget", Error, Input, "a layout places more objects than the map allows"),
    ("unknown_palette_entry", Error, Input, "a layout places something that is not in the palette"),
    ("out_of_bounds", Error, Input, "a layout object lies outside the map's bounds"),
    ("bad_team", Error, Input, "a team is not red, blue or neutral"),
    ("circuit_undocked", Error, Input, "a road piece does not sit on the previous piece's exit"),
    ("circuit_open", Error, Input, "a circuit does not close"),
];

#[rustfmt::skip]
const LAUNCHER: &[Row] = &[
    ("hub_unreachable", Error, Run, "the Hub cannot be reached"),
    ("hub_status", Error, Run, "the Hub answered with an error status"),
    ("hub_deadline", Error, Run, "the sync ran past its deadline"),
    ("hub_download", Error, Run, "a download was cut short or stalled"),
    ("hub_payload", Error, Input, "the Hub's answer is not what this path returns"),
    ("hub_too_large", Error, Input, "the Hub's answer is larger than that kind of answer may be"),
    ("hub_missing_release", Error, Input, "the Hub lists a release but has no archive for it"),
    ("hub_bad_release", Warning, Input, "the Hub lists a release whose slug or version is not valid; it is ignored"),
    ("hub_bad_dependency", Error, Input, "a release's dependency range cannot be read"),
    ("hub_mismatch", Error, Input, "a verified archive says something other than the Hub did; nothing was installed"),
    ("hub_write", Error, Run, "`hub index` could not write the Hub's files"),
    ("archive_sha256", Error, Input, "an archive's SHA-256 is not the Hub's"),
    ("archive_refused", Error, Input, "an archive fails the Hub's scan"),
    ("archive_unreadable", Error, Input, "an installed archive cannot be read"),
    ("untrusted_signer", Error, Input, "an archive is signed by a key the profile does not trust"),
    ("trusted_keys_unreadable", Error, Run, "the profile's trusted-keys.txt cannot be read"),
    ("bad_trusted_key", Error, Input, "a line of trusted-keys.txt is not an Ed25519 public key"),
    ("not_a_pack", Error, Input, "an archive in packs/ is not a Forge pack"),
    ("not_a_map", Error, Input, "an archive in maps/ is a Forge pack"),
    ("second_release", Warning, Input, "a second release of an installed pack is not used"),
    ("map_refused", Error, Input, "a map does not verify, so it needs nothing"),
    ("too_many_blocks", Error, Input, "the profile would enable more catalog blocks than the game's inventory reader takes"),
    ("install_failed", Error, Run, "an install could not be finished; the profile is as it was"),
    ("bad_journal", Warning, Input, "the install journal was damaged, and was removed with the staged downloads"),
    ("catalog_write", Error, Run, "the launcher could not write the catalogs"),
    ("paks_layout", Error, Run, "the launcher could not lay a pack out in the game's Paks folder"),
    ("report_write", Error, Run, "the launcher could not write its report"),
    ("profile_write", Error, Run, "launcher add-map could not write the map into the profile"),
    ("not_a_folder", Error, Run, "there is no folder of releases to index"),
    ("unreadable", Error, Input, "`hub index` cannot read a release in its folder"),
    ("layout_unreadable", Error, Input, "a saved layout cannot be read"),
    ("missing_sidecar", Error, Input, "a saved layout has no .packs sidecar"),
    ("unknown_map", Error, Input, "a saved layout names a map the profile does not have"),
    ("sidecar_format", Error, Input, "a sidecar's first line is not its format line"),
    ("sidecar_too_new", Error, Input, "a sidecar is of a newer format than this launcher reads"),
    ("sidecar_row", Error, Input, "a sidecar line is not a pack and a requirement"),
    ("legacy_custom_tags", Error, Input, "a layout without the fpk1 marker references custom pack tags"),
    ("missing_inventory", Error, Input, "a layout needs a pack the profile does not have installed, or not in a version that serves it"),
    ("palette_binding", Error, Input, "a layout's palette index is bound to another tag now"),
];

#[rustfmt::skip]
const ASSET_MANIFESTS: &[Row] = &[
    ("bad_inputs_file", Error, Run, "the inputs ZIP cannot be opened"),
    ("bad_input_path", Error, Input, "an input path (a member of the inputs ZIP, a source or a from) is not a plain relative path inside the inputs"),
    ("not_an_object", Error, Input, "a manifest value must be an object"),
    ("unknown_field", Error, Input, "a manifest object has a field the format does not define"),
    ("missing_field", Error, Input, "a required manifest field is missing"),
    ("not_a_string", Error, Input, "a manifest value must be a non-empty string"),
    ("unknown_schema", Error, Input, "the manifest's schema is not one this build reads"),
    ("bad_manifest_id", Error, Input, "a manifestId is not a plain name, so it could name a folder outside the build"),
    ("bad_colour", Error, Input, "a style.palette colour is not #rrggbb"),
    ("bad_revision", Error, Input, "a revision is not a positive whole number"),
    ("no_assets", Error, Input, "a manifest lists no assets"),
    ("no_targets", Error, Input, "a manifest names no targets"),
    ("duplicate_asset_id", Error, Input, "an asset id is used twice"),
    ("describe_required", Error, Input, "an asset to generate does not describe what to make"),
    ("no_representations", Error, Input, "an asset has no representations"),
    ("duplicate_representation_id", Error, Input, "a representation id is used twice"),
    ("no_files", Error, Input, "a representation lists no files"),
    ("no_generation_lane", Error, Input, "a file's format has no lane that makes it"),
    ("emit_without_content", Error, Input, "an emitted file has no content"),
    ("derive_without_block", Error, Input, "a derived file has no derive block"),
    ("derive_block_without_action", Error, Input, "a file has a derive block but is not derived"),
    ("derive_rule_not_implemented", Error, Input, "a derive rule of the format is not implemented by this build"),
    ("derive_without_sources", Error, Input, "a derive block lists no sources in from"),
    ("missing_input", Error, Input, "a source or from path is not in the inputs ZIP"),
    ("duplicate_output_path", Error, Input, "two files write one output path (names equal but for case count as one)"),
    ("path_too_long", Error, Input, "an output path is longer than the format allows"),
    ("bad_output_path", Error, Input, "an output path is not a plain relative path Windows can create"),
    ("double_density_outside_common", Error, Input, "an @2x.png copy lies outside Common/"),
    ("path_outside_target", Error, Input, "an output path is outside its target's folder"),
    ("format_mismatch", Warning, Input, "a file's name does not end in its format's extension"),
    ("wrong_namespace", Error, Input, "a path uses another namespace than the pack's"),
    ("authoring_kind", Error, Input, "authoring/ holds something other than sources"),
    ("rights_forbid_bytes", Error, Input, "an input's rights do not let its bytes be copied or derived"),
    ("licensed_without_license", Error, Input, "a licensed input names no licence"),
    ("restrictive_license", Error, Input, "an input's licence does not allow redistribution"),
];

#[rustfmt::skip]
const ASSET_REVIEWS: &[Row] = &[
    ("wrong_schema", Error, Input, "a review's schema is not the review format"),
    ("review_without_reviewer", Error, Input, "a review names no reviewer"),
    ("review_of_another_manifest", Error, Input, "a review is of another manifest or revision"),
    ("review_unknown_path", Error, Input, "a review judges a path the manifest does not make"),
    ("review_duplicate_path", Error, Input, "a review judges a path twice"),
    ("review_missing_file", Warning, Input, "an output path has no verdict yet"),
    ("bad_verdict", Error, Input, "a verdict is not accepted, rejected or pending"),
    ("review_not_delivered", Error, Input, "a review has a digest for a file the delivery lacks"),
    ("review_stale", Error, Input, "a file changed since it was reviewed"),
    ("review_without_bytes", Error, Input, "a verdict has no SHA-256 of the bytes judged"),
    ("review_rejection_unexplained", Error, Input, "a rejection has no notes saying what to change"),
    ("file_rejected", Warning, Input, "a delivered file is rejected"),
    ("file_pending", Warning, Input, "a delivered file waits for a verdict"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_code_is_declared_once_with_a_meaning() {
        let mut seen = std::collections::BTreeSet::new();
        for c in all() {
            assert!(seen.insert(c.code), "{} is declared twice", c.code);
            assert!(c
                .code
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'));
            assert!(
                !c.meaning.is_empty() && !c.meaning.ends_with('.'),
                "{}",
                c.code
            );
        }
        assert!(find(COULD_NOT_RUN).is_some_and(|c| c.exit == Exit::Run));
    }
}
