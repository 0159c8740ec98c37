// The report's 3D block viewer. Each block's data is a script beside its previews
// (`<block>.view.js`, written by the cook's `view` step) that calls MJOLNIR_VIEW.add; a page
// opened from disk may load scripts but not fetch files. A block's script is loaded only
// when its view is opened.
//
// The page's address says what is shown, so a finding can link to its ray and a test can
// open a view directly: #view=<pack>/<set>/<block>[&frame=<check>/<name>][&hulls=0|1]
// [&hullstyle=wire|solid][&mesh=0|1][&rays=0|1][&shapes=0|1][&shot=1][&silhouette=1], or
// a map's placed pieces: #map=<map>[&hulls=..][&mesh=..].

import * as THREE from "three";
import { OrbitControls } from "three/examples/jsm/controls/OrbitControls.js";
import { GLTFLoader } from "three/examples/jsm/loaders/GLTFLoader.js";

const PASS = 0x1faa3c;
const FAIL = 0xe01b1b;
// The opacity from which a see-through surface counts in a silhouette: 160 of 255, above
// where two layers of 35% glass overlap in a preview.
const SILHOUETTE_OPACITY = 160 / 255;
const SHAPE = { apertures: 0xe6b400, supports: 0x00a6a6, joins: 0xb000c8 };

const loaded = new Map(); // "block:<pack>/<set>/<block>" or "map:<map>" -> its data

// A script names only its block (or map), so scripts load one at a time and each answers
// the load in progress.
let loading = null; // { kind, name, resolve }
let queue = Promise.resolve();

function add(block, glbBase64, rays) {
  if (!loading || loading.kind !== "block" || loading.name !== block) return;
  const bytes = Uint8Array.from(atob(glbBase64), (c) => c.charCodeAt(0));
  loading.resolve({ glb: bytes.buffer, rays });
}

function map(slug, layout) {
  if (!loading || loading.kind !== "map") return;
  loading.resolve({ layout });
}

function load(kind, key, src) {
  const id = kind + ":" + key;
  const next = queue.then(() => {
    if (loaded.has(id)) return loaded.get(id);
    return new Promise((resolve, reject) => {
      loading = { kind, name: key.split("/").pop(), resolve };
      const script = document.createElement("script");
      script.src = src;
      script.onerror = () => reject(new Error("cannot load " + src));
      document.head.appendChild(script);
    }).then((data) => {
      loaded.set(id, data);
      return data;
    }).finally(() => {
      loading = null;
    });
  });
  queue = next.catch(() => {});
  return next;
}

function parseGlb(glb) {
  return new Promise((resolve, reject) => new GLTFLoader().parse(glb, "", resolve, reject));
}

function options() {
  const params = new URLSearchParams(location.hash.slice(1));
  const flag = (name, otherwise) => (params.has(name) ? params.get(name) !== "0" : otherwise);
  return {
    view: params.get("view"),
    map: params.get("map"),
    frame: params.get("frame"),
    hulls: flag("hulls", true),
    hullStyle: params.get("hullstyle") === "solid" ? "solid" : "wire",
    mesh: flag("mesh", true),
    rays: flag("rays", true),
    shapes: flag("shapes", true),
    shot: flag("shot", false),
    silhouette: flag("silhouette", false),
  };
}

function setOption(name, value) {
  const params = new URLSearchParams(location.hash.slice(1));
  params.set(name, value);
  history.replaceState(null, "", "#" + params.toString());
}

function line(points, colour) {
  const geometry = new THREE.BufferGeometry().setFromPoints(points.map((p) => new THREE.Vector3(...p)));
  return new THREE.Line(geometry, new THREE.LineBasicMaterial({ color: colour, depthTest: false, transparent: true }));
}

function along(ray, t) {
  return ray.origin_m.map((o, i) => o + ray.direction[i] * t);
}

// A ray: green where it passes, red from where it hit; a failing ray's hit is marked.
function rayObjects(ray, marker) {
  const group = new THREE.Group();
  const end = along(ray, ray.length_m);
  const hit = ray.hit ? ray.hit.point_m : null;
  if (ray.passed) {
    group.add(line([ray.origin_m, hit || end], PASS));
    return group;
  }
  if (!hit) {
    group.add(line([ray.origin_m, end], FAIL));
    return group;
  }
  group.add(line([ray.origin_m, hit], PASS));
  group.add(line([hit, end], FAIL));
  const dot = new THREE.Mesh(
    new THREE.SphereGeometry(marker, 12, 8),
    new THREE.MeshBasicMaterial({ color: FAIL, depthTest: false, transparent: true })
  );
  dot.position.set(...hit);
  dot.renderOrder = 2;
  dot.name = "hit";
  group.add(dot);
  return group;
}

function rectangle(corners, colour) {
  return line([...corners, corners[0]], colour);
}

function shapeObjects(rays) {
  const group = new THREE.Group();
  for (const a of rays.apertures) {
    const [cx, cy, cz] = a.centre_m;
    const hw = a.width_m / 2;
    const hh = a.height_m / 2;
    const at = (u, v) => (a.axis === "x" ? [cx, cy + u, cz + v] : [cx + u, cy, cz + v]);
    group.add(rectangle([at(-hw, -hh), at(hw, -hh), at(hw, hh), at(-hw, hh)], SHAPE.apertures));
  }
  for (const s of rays.supports) {
    const z = (x, y) => s.height_m + s.grade[0] * (x - s.min_m[0]) + s.grade[1] * (y - s.min_m[1]);
    const [x0, y0] = s.min_m;
    const [x1, y1] = s.max_m;
    group.add(rectangle([[x0, y0, z(x0, y0)], [x1, y0, z(x1, y0)], [x1, y1, z(x1, y1)], [x0, y1, z(x0, y1)]], SHAPE.supports));
  }
  for (const j of rays.joins) group.add(line([j.from_m, j.to_m], SHAPE.joins));
  return group;
}

// What both views share: a renderer in the panel, a perspective camera Z up, orbit, pan
// and zoom, the studio's two lights, and a size that follows the panel.
class Stage {
  constructor(container, opts, size, fov) {
    this.opts = opts;
    const [w, h] = size || [container.clientWidth || 640, container.clientHeight || 480];
    this.renderer = new THREE.WebGLRenderer({ antialias: !opts.silhouette, preserveDrawingBuffer: true, alpha: false });
    this.renderer.setPixelRatio(1);
    this.renderer.setSize(w, h);
    this.renderer.setClearColor(opts.silhouette ? 0x000000 : 0xf4f4f6);
    container.appendChild(this.renderer.domElement);
    this.scene = new THREE.Scene();
    this.camera = new THREE.PerspectiveCamera(fov, w / h, 0.01, 10000);
    this.camera.up.set(0, 0, 1);
    this.controls = new OrbitControls(this.camera, this.renderer.domElement);
    this.controls.addEventListener("change", () => this.draw());
    if (!size) {
      this.observer = new ResizeObserver(() => this.resize(container));
      this.observer.observe(container);
    }
    this.scene.add(new THREE.HemisphereLight(0xffffff, 0x8a8a90, 1.6));
    const sun = new THREE.DirectionalLight(0xffffff, 1.4);
    sun.position.set(3, -5, 8);
    this.scene.add(sun);
  }

  look(from, at) {
    this.camera.position.set(...from);
    this.controls.target.set(...at);
    this.camera.lookAt(this.controls.target);
    this.controls.update();
  }

  // The panel's size follows the window; a screenshot's is fixed.
  resize(container) {
    const [w, h] = [container.clientWidth, container.clientHeight];
    if (!w || !h) return;
    this.renderer.setSize(w, h);
    this.camera.aspect = w / h;
    this.camera.updateProjectionMatrix();
    this.draw();
  }

  draw() {
    if (this.ready) this.renderer.render(this.scene, this.camera);
  }

  dispose() {
    this.ready = false;
    if (this.observer) this.observer.disconnect();
    this.controls.dispose();
    this.renderer.dispose();
    this.renderer.forceContextLoss();
  }
}

// glTF is Y up; the pack is Z up.
function inPackSpace(object) {
  const pack = new THREE.Group();
  pack.rotation.x = Math.PI / 2;
  pack.add(object);
  return pack;
}

// A model may lay one material's face on another's (an inset panel on a slab): the later
// section wins the tie, as in the previews, rather than the two flickering.
function orderSections(visual) {
  let order = 0;
  visual.traverse((o) => {
    if (!o.isMesh) return;
    o.material = o.material.clone();
    o.material.polygonOffset = order > 0;
    o.material.polygonOffsetFactor = -order;
    o.material.polygonOffsetUnits = -order;
    order += 1;
  });
}

// Each hull's edges, shown whether its faces are or not.
function hullEdges(hulls) {
  const wires = [];
  for (const hull of hulls) {
    hull.traverse((o) => {
      if (!o.isMesh) return;
      const edges = new THREE.LineSegments(
        new THREE.EdgesGeometry(o.geometry, 1),
        new THREE.LineBasicMaterial({ color: 0x1565c0 })
      );
      o.add(edges);
      wires.push(o);
    });
  }
  return wires;
}

class View extends Stage {
  constructor(container, key, data, opts) {
    const cam = data.rays.camera;
    super(container, opts, opts.shot ? cam.resolution : null, cam.vertical_fov_deg);
    this.key = key;
    this.data = data;
    this.camera.up.set(...cam.up);
    this.look(cam.position_m, cam.target_m);
  }

  build(gltf) {
    this.scene.add(inPackSpace(gltf.scene));
    this.visual = gltf.scene.getObjectByName("visual");
    orderSections(this.visual);
    this.hulls = gltf.scene.children.filter((n) => n.name.startsWith("UCX_"));
    this.wires = hullEdges(this.hulls);
    // A silhouette is what hides the background, white: opaque surfaces, and see-through
    // ones that hide most of it (a portal's sheet at 80%, not glass at 35%).
    if (this.opts.silhouette) {
      const white = new THREE.MeshBasicMaterial({ color: 0xffffff, side: THREE.DoubleSide });
      this.visual.traverse((o) => {
        if (!o.isMesh) return;
        o.visible = !o.material.transparent || o.material.opacity >= SILHOUETTE_OPACITY;
        o.material = white;
      });
    }
    const size = new THREE.Box3().setFromObject(this.visual).getSize(new THREE.Vector3()).length();
    this.rays = new THREE.Group();
    for (const check of this.data.rays.checks) {
      const group = new THREE.Group();
      group.name = check.check + "/" + check.name;
      for (const ray of check.rays) group.add(rayObjects(ray, Math.max(size * 0.006, 0.015)));
      this.rays.add(group);
    }
    this.rays.renderOrder = 1;
    this.shapes = shapeObjects(this.data.rays);
    this.scene.add(this.rays, this.shapes);
    this.ready = true;
    this.apply();
    if (this.opts.frame) this.frame(this.opts.frame);
  }

  apply() {
    const o = this.opts;
    const plain = o.silhouette;
    this.visual.visible = o.mesh;
    for (const hull of this.hulls) hull.visible = o.hulls && !plain;
    for (const mesh of this.wires) mesh.material.visible = o.hullStyle === "solid";
    this.rays.visible = o.rays && !plain;
    this.shapes.visible = o.shapes && !plain;
    this.draw();
  }

  // Points the camera at a check's rays (named `check/name`, or by the code it failed
  // with): its failing hits, or all of its rays.
  frame(name) {
    const check = this.data.rays.checks.find(
      (c) => c.check + "/" + c.name === name || (c.failure && c.failure.code === name)
    );
    if (!check || !check.rays.length) return;
    const box = new THREE.Box3();
    const failing = check.rays.filter((r) => !r.passed && r.hit);
    for (const r of failing.length ? failing : check.rays) {
      box.expandByPoint(new THREE.Vector3(...(r.hit ? r.hit.point_m : r.origin_m)));
      if (!failing.length) box.expandByPoint(new THREE.Vector3(...along(r, r.length_m)));
    }
    const centre = box.getCenter(new THREE.Vector3());
    const radius = Math.max(box.getSize(new THREE.Vector3()).length() * 0.65, 0.5);
    const back = this.camera.position.clone().sub(this.controls.target).normalize();
    const distance = radius / Math.sin(THREE.MathUtils.degToRad(this.camera.fov / 2));
    this.controls.target.copy(centre);
    this.camera.position.copy(centre).addScaledVector(back, distance);
    this.controls.update();
    this.draw();
  }
}

let current = null;

function panel() {
  let p = document.getElementById("viewer");
  if (p) return p;
  p = document.createElement("div");
  p.id = "viewer";
  p.innerHTML =
    '<div class="viewer-bar"><b class="viewer-title"></b>' +
    '<label><input type="checkbox" data-option="mesh"> mesh</label>' +
    '<label><input type="checkbox" data-option="hulls"> hulls</label>' +
    '<label><input type="checkbox" data-option="hullstyle"> solid hulls</label>' +
    '<label class="block-only"><input type="checkbox" data-option="rays"> rays</label>' +
    '<label class="block-only"><input type="checkbox" data-option="shapes"> supports, joins, apertures</label>' +
    '<span class="viewer-checks"></span><button class="viewer-close">close</button></div>' +
    '<div class="viewer-canvas"></div>';
  document.body.appendChild(p);
  p.querySelector(".viewer-close").onclick = () => {
    history.replaceState(null, "", location.pathname + location.search);
    close();
  };
  for (const box of p.querySelectorAll("input[data-option]")) {
    box.onchange = () => {
      const name = box.dataset.option;
      setOption(name, name === "hullstyle" ? (box.checked ? "solid" : "wire") : box.checked ? "1" : "0");
      if (current) {
        current.opts = options();
        current.apply();
      }
    };
  }
  return p;
}

// A browser keeps only a few WebGL contexts: a closed view gives its own back at once
// rather than when it is collected, so opening view after view keeps working.
function close() {
  if (current) current.dispose();
  const p = document.getElementById("viewer");
  if (p) p.remove();
  current = null;
}

// A view whose data cannot be loaded or read says so in the panel.
function failed(title, error) {
  const p = openPanel(title, options(), false);
  p.querySelector(".viewer-canvas").textContent = "cannot show this view: " + error.message;
  document.body.dataset.viewFailed = title;
}

// The panel with its title and toggles set from the address.
function openPanel(title, opts, isMap) {
  close();
  const p = panel();
  p.classList.toggle("shot", opts.shot);
  p.classList.toggle("map", isMap);
  p.querySelector(".viewer-title").textContent = title;
  for (const box of p.querySelectorAll("input[data-option]")) {
    const name = box.dataset.option;
    box.checked = name === "hullstyle" ? opts.hullStyle === "solid" : opts[name];
  }
  return p;
}

function shown(id) {
  document.body.dataset.viewReady = id;
  // Since the page began to load: what the bench reports as the time to the first view.
  document.body.dataset.viewMs = performance.now().toFixed(1);
}

async function open(key) {
  const link = document.querySelector('[data-view="' + CSS.escape(key) + '"]');
  if (!link) return;
  const opts = options();
  const data = await load("block", key, link.dataset.src);
  const p = openPanel(key, opts, false);
  const list = p.querySelector(".viewer-checks");
  for (const c of data.rays.checks.filter((c) => c.rays.length)) {
    const a = document.createElement("a");
    a.href = "#view=" + encodeURIComponent(key) + "&frame=" + encodeURIComponent(c.check + "/" + c.name);
    a.textContent = c.check + "/" + c.name;
    a.className = c.passed || c.waived ? "pass" : "fail";
    list.appendChild(a);
  }
  const view = new View(p.querySelector(".viewer-canvas"), key, data, opts);
  current = view;
  view.build(await parseGlb(data.glb));
  shown(key);
}

// A map's placed pieces, each drawn from its block's own view (the first set on the page
// with the block). Pieces no view on the page has are counted, not drawn.
class MapView extends Stage {
  constructor(container, name, opts) {
    super(container, opts, null, 35);
    this.key = "map:" + name;
  }

  build(layout, models) {
    this.pieces = new THREE.Group();
    this.hulls = [];
    for (const placed of layout.placed) {
      const model = models.get(placed.palette);
      if (!model) continue;
      const piece = new THREE.Group();
      piece.position.set(...placed.position_m);
      piece.rotation.z = THREE.MathUtils.degToRad(placed.yaw_deg);
      const copy = model.clone();
      piece.add(inPackSpace(copy));
      this.hulls.push(...copy.children.filter((n) => n.name.startsWith("UCX_")));
      this.pieces.add(piece);
    }
    this.wires = hullEdges(this.hulls);
    this.scene.add(this.pieces);
    // From the previews' side: 30 degrees up, 60 degrees round, the whole layout in view.
    const box = new THREE.Box3().setFromObject(this.pieces);
    const centre = box.getCenter(new THREE.Vector3());
    const radius = Math.max(box.getSize(new THREE.Vector3()).length() * 0.4, 1);
    const distance = radius / Math.sin(THREE.MathUtils.degToRad(this.camera.fov / 2));
    const [up, round] = [30, -60].map(THREE.MathUtils.degToRad);
    const from = [Math.cos(up) * Math.cos(round), Math.cos(up) * Math.sin(round), Math.sin(up)];
    this.look(from.map((d, i) => centre.getComponent(i) + d * distance), centre.toArray());
    this.ready = true;
    this.apply();
  }

  apply() {
    const o = this.opts;
    for (const piece of this.pieces.children) {
      piece.traverse((n) => n.name === "visual" && (n.visible = o.mesh));
    }
    for (const hull of this.hulls) hull.visible = o.hulls;
    for (const mesh of this.wires) mesh.material.visible = o.hullStyle === "solid";
    this.draw();
  }
}

async function openMap(name) {
  const link = document.querySelector('[data-map="' + CSS.escape(name) + '"]');
  if (!link) return;
  const opts = options();
  // A layout's hull edges would cover it: a map opens without them.
  if (!new URLSearchParams(location.hash.slice(1)).has("hulls")) opts.hulls = false;
  const { layout } = await load("map", name, link.dataset.src);
  const views = [...document.querySelectorAll("[data-view]")].map((e) => e.dataset);
  const models = new Map();
  for (const palette of new Set(layout.placed.map((p) => p.palette))) {
    const [pack, block] = palette.split("/");
    const found = views.find((v) => {
      const key = v.view.split("/");
      return key[0] === pack && key[key.length - 1] === block;
    });
    if (!found) continue;
    const data = await load("block", found.view, found.src);
    const gltf = await parseGlb(data.glb);
    orderSections(gltf.scene.getObjectByName("visual"));
    models.set(palette, gltf.scene);
  }
  const drawn = layout.placed.filter((p) => models.has(p.palette)).length;
  const p = openPanel(name + ": " + drawn + " of " + layout.placed.length + " pieces", opts, true);
  const view = new MapView(p.querySelector(".viewer-canvas"), name, opts);
  current = view;
  view.build(layout, models);
  document.body.dataset.mapPieces = drawn + "/" + layout.placed.length;
  shown("map:" + name);
}

function route() {
  const opts = options();
  const key = opts.view || (opts.map && "map:" + opts.map);
  if (!key) return close();
  if (current && current.key === key) {
    current.opts = opts;
    current.apply();
    if (opts.frame && current.frame) current.frame(opts.frame);
    return;
  }
  const opening = opts.view ? open(opts.view) : openMap(opts.map);
  opening.catch((error) => failed(key, error));
}

window.MJOLNIR_VIEW = { add, map };
window.addEventListener("hashchange", route);
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", route);
else route();
