/**
 * The CDK library the construct layer extends, for the `fleetform` entry: cdktf. Every
 * construct imports the library from this module and from nowhere else, so the build makes
 * the `fleetform/cdktn` entry from the same compiled layer with cdk-cdktn.ts in this
 * module's place (scripts/cdk-flavours.js). Both modules export the same names.
 */
import type * as Cdk from 'cdktf';
import { CDKTF, loadCdkLibrary } from './cdk-library';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- an optional peer: loaded inside the check that names it when missing
const cdk = loadCdkLibrary<typeof Cdk>(CDKTF, () => require('cdktf'));

export const { Annotations, AnnotationMetadataEntryType, TerraformProvider, TerraformResource, TerraformStack, Token, dependable } = cdk;
export type AnnotationMetadataEntryType = Cdk.AnnotationMetadataEntryType;
export type TerraformProvider = Cdk.TerraformProvider;
export type TerraformResource = Cdk.TerraformResource;
export type TerraformStack = Cdk.TerraformStack;
