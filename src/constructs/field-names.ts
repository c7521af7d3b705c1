/** `module_id` -> `moduleId`: a name of the service's JSON as a construct's prop. */
export function camelCase(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

/** `depends_on[0]` -> `dependsOn[0]`: the first segment of a wire path in camelCase, the construct's own field name. */
export function camelFirstSegment(path: string): string {
  const m = /^([a-z0-9]+(?:_[a-z0-9]+)+)(.*)$/.exec(path);
  if (!m) return path;
  return `${camelCase(m[1] as string)}${m[2] as string}`;
}
