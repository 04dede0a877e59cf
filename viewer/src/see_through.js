// The material of static bodies (ground, walls, bins): see-through, lit
// per vertex. The ground of a large scene covers most of the canvas, and a
// renderer without a GPU (SwiftShader, as in headless Chromium) pays for
// every pixel's shader: three's MeshLambertMaterial lights each pixel
// (~6 ms a frame for a ground seen whole at 960 x 540 here), this one each
// corner and fills the faces with the result (about half of that).
//
// The light is three's Lambert model with the scene's hemisphere light and
// sun, so a flat face gets the colour MeshLambertMaterial would give it:
// colour / pi * (sun * max(n . l, 0) + mix(ground, sky, (n . up + 1) / 2)).

import * as THREE from 'three';

const vertexShader = /* glsl */ `
  uniform vec3 sunDirection; // towards the sun, world frame
  uniform vec3 sunColor;     // linear, times intensity
  uniform vec3 skyColor;     // the hemisphere light's, linear, times intensity
  uniform vec3 groundColor;
  varying vec3 vColor;
  void main() {
    // World normal: mat3 of the instance matrix, normalised (its scale is
    // per axis and the shapes' faces are axis-aligned or unscaled).
    vec3 n = normalize(mat3(modelMatrix) * mat3(instanceMatrix) * normal);
    vec3 irradiance = sunColor * max(dot(n, sunDirection), 0.0)
      + mix(groundColor, skyColor, 0.5 * n.y + 0.5);
    vColor = instanceColor * irradiance * 0.3183098861837907; // 1 / pi: Lambert
    gl_Position = projectionMatrix * viewMatrix * modelMatrix * instanceMatrix * vec4(position, 1.0);
  }
`;

const fragmentShader = /* glsl */ `
  uniform float opacity;
  varying vec3 vColor;
  void main() {
    gl_FragColor = vec4(vColor, opacity);
    #include <colorspace_fragment>
  }
`;

// hemisphere: THREE.HemisphereLight (up the world's y); sun: THREE.DirectionalLight aimed at the origin.
export function seeThroughMaterial(hemisphere, sun, opacity) {
  const times = (color, intensity) => color.clone().multiplyScalar(intensity);
  return new THREE.ShaderMaterial({
    vertexShader,
    fragmentShader,
    uniforms: {
      sunDirection: { value: sun.position.clone().normalize() },
      sunColor: { value: times(sun.color, sun.intensity) },
      skyColor: { value: times(hemisphere.color, hemisphere.intensity) },
      groundColor: { value: times(hemisphere.groundColor, hemisphere.intensity) },
      opacity: { value: opacity },
    },
    transparent: true,
    depthWrite: false,
  });
}
