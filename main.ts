import { App } from 'cdktf';
import { buildFleet } from './stacks';

// The example fleet of stacks/: `fleetform synth` (or `cdktf synth`) runs this file.
const app = new App();
buildFleet(app);
app.synth();
