/** The engine's face for the code fleetform writes: a new project (`fleetform init`), an adopted organization (`fleetform adopt`). */
export { planAdoption, type Adoption } from './adopt/adoption';
export { readInventory } from './adopt/inventory';
export { renderAdoption, renderMain, summary, type CdkFlavour } from './adopt/render';
export { fleetformSpecFor, isLocalSpec, newProjectFiles, nextSteps, projectName, type FleetformSource } from './project/new-project';
