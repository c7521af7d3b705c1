/**
 * The CDK library the construct layer extends, for the `fleetform/cdktn` entry: cdktn
 * (CDK Terrain). The build copies the compiled construct layer to dist/constructs-cdktn
 * and puts this module there in the place of ./cdk (scripts/cdk-flavours.js); it exports
 * the same names as ./cdk.
 */
import type * as Cdk from 'cdktn';
import { CDKTN, loadCdkLibrary } from './cdk-library';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- an optional peer: loaded inside the check that names it when missing
const cdk = loadCdkLibrary<typeof Cdk>(CDKTN, () => require('cdktn'));

export const { Annotations, AnnotationMetadataEntryType, TerraformProvider, TerraformResource, TerraformStack, Token, dependable } = cdk;
export type AnnotationMetadataEntryType = Cdk.AnnotationMetadataEntryType;
export type TerraformProvider = Cdk.TerraformProvider;
export type TerraformResource = Cdk.TerraformResource;
export type TerraformStack = Cdk.TerraformStack;
