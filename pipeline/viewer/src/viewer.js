// The report's 3D block viewer. Each block's data is a script beside its previews
// (`<block>.view.js`, written by the cook's `view` step) that calls MJOLNIR_VIEW.add; a page
// opened from disk may load scripts but not fetch files. A block's script is loaded only
// when its view is opened.
//
// The page's address says what is shown, so a finding can link to its ray and a test can
// open a view directly: #view=<pack>/<set>/<block>[&frame=<check>/<name>][&hulls=0|1]
// [&hullstyle=wire|solid][&mesh=0|1][&rays=0|1][&shapes=0|1][&shot=1][&silhouette=1].

import * as THREE from "three";
import { OrbitControls } from "three/examples/jsm/controls/OrbitControls.js";
import { GLTFLoader } from "three/examples/jsm/loaders/GLTFLoader.js";

const PASS = 0x1faa3c;
const FAIL = 0xe01b1b;
const SHAPE = { apertures: 0xe6b400, supports: 0x00a6a6, joins: 0xb000c8 };

const loaded = new Map(); // key (pack/set/block) -> { glb, rays }

// A block's script names only its block, so scripts load one at a time and each answers
// the load in progress.
let loading = null; // { key, block, resolve }
let queue = Promise.resolve();

function add(block, glbBase64, rays) {
  if (!loading || loading.block !== block) return;
  const bytes = Uint8Array.from(atob(glbBase64), (c) => c.charCodeAt(0));
  const data = { glb: bytes.buffer, rays };
  loaded.set(loading.key, data);
  loading.resolve(data);
}

function load(key, src) {
  const next = queue.then(() => {
    if (loaded.has(key)) return loaded.get(key);
    return new Promise((resolve, reject) => {
      loading = { key, block: key.split("/").pop(), resolve };
      const script = document.createElement("script");
      script.src = src;
      script.onerror = () => reject(new Error("cannot load " + src));
      document.head.appendChild(script);
    }).finally(() => {
      loading = null;
    });
  });
  queue = next.catch(() => {});
  return next;
}

function options() {
  const params = new URLSearchParams(location.hash.slice(1));
  const flag = (name, otherwise) => (params.has(name) ? params.get(name) !== "0" : otherwise);
  return {
    view: params.get("view"),
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

class View {
  constructor(container, key, data, opts) {
    this.key = key;
    this.data = data;
    this.opts = opts;
    const cam = data.rays.camera;
    const [w, h] = opts.shot ? cam.resolution : [container.clientWidth || 640, container.clientHeight || 480];
    this.renderer = new THREE.WebGLRenderer({ antialias: !opts.silhouette, preserveDrawingBuffer: true, alpha: false });
    this.renderer.setPixelRatio(1);
    this.renderer.setSize(w, h);
    this.renderer.setClearColor(opts.silhouette ? 0x000000 : 0xf4f4f6);
    container.appendChild(this.renderer.domElement);
    this.scene = new THREE.Scene();
    this.camera = new THREE.PerspectiveCamera(cam.vertical_fov_deg, w / h, 0.01, 1000);
    this.camera.up.set(...cam.up);
    this.camera.position.set(...cam.position_m);
    this.controls = new OrbitControls(this.camera, this.renderer.domElement);
    this.controls.target.set(...cam.target_m);
    this.camera.lookAt(this.controls.target);
    this.controls.update();
    this.controls.addEventListener("change", () => this.draw());
    if (!opts.shot) new ResizeObserver(() => this.resize(container)).observe(container);
    this.scene.add(new THREE.HemisphereLight(0xffffff, 0x8a8a90, 1.6));
    const sun = new THREE.DirectionalLight(0xffffff, 1.4);
    sun.position.set(3, -5, 8);
    this.scene.add(sun);
  }

  // glTF is Y up; the pack is Z up.
  build(gltf) {
    const pack = new THREE.Group();
    pack.rotation.x = Math.PI / 2;
    pack.add(gltf.scene);
    this.scene.add(pack);
    this.visual = gltf.scene.getObjectByName("visual");
    // A model may lay one material's face on another's (an inset panel on a slab): the
    // later section wins the tie, as in the previews, rather than the two flickering.
    let order = 0;
    this.visual.traverse((o) => {
      if (!o.isMesh) return;
      o.material = o.material.clone();
      o.material.polygonOffset = order > 0;
      o.material.polygonOffsetFactor = -order;
      o.material.polygonOffsetUnits = -order;
      order += 1;
    });
    this.hulls = gltf.scene.children.filter((n) => n.name.startsWith("UCX_"));
    this.wires = [];
    for (const hull of this.hulls) {
      hull.traverse((o) => {
        if (!o.isMesh) return;
        const edges = new THREE.LineSegments(
          new THREE.EdgesGeometry(o.geometry, 1),
          new THREE.LineBasicMaterial({ color: 0x1565c0 })
        );
        o.add(edges);
        this.wires.push({ mesh: o, edges });
      });
    }
    if (this.opts.silhouette) {
      const white = new THREE.MeshBasicMaterial({ color: 0xffffff, side: THREE.DoubleSide });
      this.visual.traverse((o) => o.isMesh && (o.material = white));
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
    this.apply();
    if (this.opts.frame) this.frame(this.opts.frame);
  }

  apply() {
    const o = this.opts;
    const plain = o.silhouette;
    this.visual.visible = o.mesh;
    for (const hull of this.hulls) hull.visible = o.hulls && !plain;
    for (const { mesh, edges } of this.wires) {
      mesh.material.visible = o.hullStyle === "solid";
      edges.visible = true;
    }
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

  // The panel's size follows the window; a screenshot's is the preview's.
  resize(container) {
    const [w, h] = [container.clientWidth, container.clientHeight];
    if (!w || !h) return;
    this.renderer.setSize(w, h);
    this.camera.aspect = w / h;
    this.camera.updateProjectionMatrix();
    this.draw();
  }

  draw() {
    if (!this.visual) return;
    this.renderer.render(this.scene, this.camera);
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
    '<label><input type="checkbox" data-option="rays"> rays</label>' +
    '<label><input type="checkbox" data-option="shapes"> supports, joins, apertures</label>' +
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

function close() {
  const p = document.getElementById("viewer");
  if (p) p.remove();
  current = null;
}

async function open(key) {
  const link = document.querySelector('[data-view="' + CSS.escape(key) + '"]');
  if (!link) return;
  const opts = options();
  const data = await load(key, link.dataset.src);
  close();
  const p = panel();
  p.classList.toggle("shot", opts.shot);
  p.querySelector(".viewer-title").textContent = key;
  for (const box of p.querySelectorAll("input[data-option]")) {
    const name = box.dataset.option;
    box.checked = name === "hullstyle" ? opts.hullStyle === "solid" : opts[name];
  }
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
  new GLTFLoader().parse(data.glb, "", (gltf) => {
    view.build(gltf);
    document.body.dataset.viewReady = key;
    // Since the page began to load: what the bench reports as the time to the first view.
    document.body.dataset.viewMs = performance.now().toFixed(1);
  });
}

function route() {
  const { view, frame } = options();
  if (!view) return close();
  if (current && current.key === view) {
    current.opts = options();
    current.apply();
    if (frame) current.frame(frame);
    return;
  }
  open(view);
}

window.MJOLNIR_VIEW = { add };
window.addEventListener("hashchange", route);
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", route);
else route();
