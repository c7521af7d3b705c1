import { rememberedByText } from '../../src/domain/remembered';

test('answers are computed once per text, undefined ones too; long texts are not kept; a full memory starts over', () => {
  const asked: string[] = [];
  const f = rememberedByText((t) => {
    asked.push(t);
    return t.startsWith('a') ? t.toUpperCase() : undefined;
  }, 4);
  expect([f('ab'), f('ab'), f('b'), f('b'), f('abcde'), f('abcde')]).toEqual(['AB', 'AB', undefined, undefined, 'ABCDE', 'ABCDE']);
  expect(asked).toEqual(['ab', 'b', 'abcde', 'abcde']);

  const seen: string[] = [];
  const g = rememberedByText((t) => seen.push(t));
  g('first');
  g('first');
  expect(seen).toEqual(['first']);
  for (let i = 0; i < 1024; i++) g(`t${i}`);
  seen.length = 0;
  g('first');
  expect(seen).toEqual(['first']);
});
