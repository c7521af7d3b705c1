import { CONFIG_LANGUAGE, sectionConstruct, type SectionDeclaration } from '../domain/config-language';
import type { AttributeFacts, AttributePresence, KindDeclaration, TerraformType } from './kind-declaration';

/** A Terraform type as HCL writes it: `list(string)`, `map(string)`, `object({a = string})`. */
export function hclType(type: TerraformType): string {
  if (typeof type === 'string') return type;
  const [shape, inner] = type;
  if (shape === 'object')
    return `object({${Object.entries(inner)
      .map(([k, v]) => `${k} = ${hclType(v)}`)
      .join(', ')}})`;
  return `${shape}(${hclType(inner)})`;
}

const PRESENCE: Readonly<Record<AttributePresence, string>> = {
  required: 'required',
  optional: 'optional',
  computed: 'computed',
  'optional-computed': 'optional, computed when unset',
};

/** Table cells hold no line breaks and no bare pipes. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}

function row(f: AttributeFacts): string {
  const sensitive = f.sensitive === 'whole' ? 'yes' : f.sensitive === 'parts' ? `parts: ${f.sensitiveParts?.describe ?? ''}` : '';
  return `| \`${f.name}\` | \`${hclType(f.type)}\` | ${PRESENCE[f.presence]} | ${f.forcesReplacement ? 'yes' : ''} | ${cell(sensitive)} | ${cell(f.serviceDefault ?? '')} | ${cell(f.description)} |`;
}

/** The reference of every resource kind, one table per kind, from the declarations alone. */
export function resourcesMarkdown(declarations: readonly KindDeclaration[]): string {
  const lines = [
    '# Resource reference',
    '',
    "<!-- Generated from the kinds' declarations by `npm run docs`; edit the declarations, not this file. -->",
    '',
    "Every resource type fleetform manages, with what Terraform's schema says of each attribute:",
    'who sets it, whether a change replaces the object, whether it holds secrets (masked in',
    'plans, logs and state) and what is used when code leaves it out.',
  ];
  for (const d of declarations) {
    lines.push('', `## ${d.type}`, '', cell(d.description), '');
    lines.push('| Attribute | Type | Set by | Forces replacement | Sensitive | When unset | Description |');
    lines.push('| --- | --- | --- | --- | --- | --- | --- |');
    for (const f of Object.values(d.attributes)) lines.push(row(f));
    if (d.example) lines.push('', '```hcl', d.example.trim(), '```');
  }
  lines.push(...configSectionLines());
  return `${lines.join('\n')}\n`;
}

/** The sections of a machine's (or part's) `config`, from the config language's declarations. */
function configSectionLines(): string[] {
  const lines = [
    '',
    '## Sections of a machine config',
    '',
    'Every top-level section of the `config` of a `fleetform_machine` (or `fleetform_machine_part`), how code declares it, and what it holds. A key not listed is kept as written (`addConfigOverride`).',
    '',
    '| Section | Declared in code with | Description |',
    '| --- | --- | --- |',
  ];
  for (const [key, declared] of Object.entries(CONFIG_LANGUAGE) as Array<[string, SectionDeclaration]>)
    lines.push(`| \`${key}\` | ${cell(sectionConstruct(declared))} | ${cell(declared.description)} |`);
  return lines;
}
