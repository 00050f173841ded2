/**
 * The troupe release a run starts on. A whole release is deployed as a worker build (docs/versioning.md):
 * a run is pinned to the build it started on and keeps this value, carried across continue-as-new, to
 * its end. Raise it with the package's version.
 */
export const TROUPE_RELEASE = '0.3.0';
