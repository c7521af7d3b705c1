'use strict';
// Removes what scripts/pack-once.js made.
const fs = require('node:fs');

module.exports = async function removePacked() {
  const dir = process.env.FLEETFORM_PACKED_DIR;
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
};
