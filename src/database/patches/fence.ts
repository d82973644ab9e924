// The fence lives in src/common (a patch of a library under src/common uses it too); its users here keep this path.
export { patchApplies } from '../../common/patches/fence';
