#!/usr/bin/env node
'use strict';
// The Terraform/OpenTofu provider, compiled to JavaScript in dist/ by `npm run build`.
require('../dist/cli/provider-main.js')
  .providerMain()
  .then((code) => process.exit(code));
