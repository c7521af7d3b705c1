/** `depends_on[0]` -> `dependsOn[0]`: the first segment of a wire path in camelCase, the construct's own field name. */
export function camelFirstSegment(path: string): string {
  const m = /^([a-z0-9]+(?:_[a-z0-9]+)+)(.*)$/.exec(path);
  if (!m) return path;
  const camel = (m[1] as string).replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
  return `${camel}${m[2] as string}`;
}
