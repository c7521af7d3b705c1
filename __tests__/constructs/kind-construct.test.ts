import { TerraformOutput, Testing } from 'cdktf';
import { z } from 'zod';
import { registerChecks } from '../../src/constructs/checks';
import { kindConstruct, propForm, type KindProps } from '../../src/constructs/kind-construct';
import { PropsError } from '../../src/constructs/props';
import { declareResource } from '../../src/domain/resource-declaration';
import { errorsOf, newStack, resourceOf, synth } from './helpers';

/** A kind no module of src declares: what a new kind's declaration and construct are. */
const noteResource = declareResource({
  type: 'fleetform_note',
  description: 'A note.',
  attributes: {
    title: { schema: z.string().min(1), description: 'Title.', forcesReplacement: true },
    text: { schema: z.string().optional(), description: 'Body.', computed: 'when-unset', serviceDefault: 'empty' },
    priority: { schema: z.number().optional(), description: 'Priority.' },
    labels: { schema: z.array(z.string()).optional(), description: 'Labels.' },
    follows_id: { schema: z.string().optional(), description: 'Id of the note it follows.' },
    id: { schema: z.string(), description: 'Id.', computed: 'always' },
  },
});

interface INote {
  readonly noteId: string;
}

const noteForms = {
  follows_id: propForm(z.union([z.string(), z.custom<INote>((x) => typeof x === 'object' && x !== null && 'noteId' in x)]).optional(), {
    prop: 'follows',
    synthesize: (n: INote | string) => (typeof n === 'string' ? n : n.noteId),
  }),
  labels: propForm(z.array(z.string()).optional(), { synthesize: (labels: string[]) => (labels.length > 0 ? [...labels] : undefined) }),
} as const;

type NoteProps = KindProps<typeof noteResource.attributes, typeof noteForms>;

class Note extends kindConstruct(noteResource, { constructName: 'Note', forms: noteForms, ids: { noteId: 'id' } }) {}

registerChecks<Note>(Note.tfResourceType, {
  acrossStack: 'none',
  each(note, sink) {
    if (note.title.startsWith(' ')) sink.error(note, 'title', 'note-title', 'a title starts with a letter');
  },
});

describe('a construct built from its resource declaration', () => {
  test('props are the attributes in camelCase, synthesized under their attribute names with unset ones left out', () => {
    const { stack } = newStack();
    const first = new Note(stack, 'first', { title: 'a', priority: 2, labels: [] });
    const props: NoteProps = { title: 'b', text: 'body', follows: first, labels: ['x'] };
    new Note(stack, 'second', props);
    const doc = synth(stack);
    expect(resourceOf(doc, 'fleetform_note', 'first')).toEqual({ title: 'a', priority: 2 });
    expect(resourceOf(doc, 'fleetform_note', 'second')).toEqual({
      title: 'b',
      text: 'body',
      labels: ['x'],
      follows_id: '${fleetform_note.first.id}',
    });
    expect(first.title).toBe('a');
    expect(first.follows).toBeUndefined();
    expect(Note.tfResourceType).toBe('fleetform_note');
  });

  test('the id getter references the id assigned at apply', () => {
    const { stack } = newStack();
    const note = new Note(stack, 'n', { title: 't' });
    new TerraformOutput(stack, 'note-id', { value: note.noteId });
    expect(JSON.parse(Testing.synth(stack)).output['note-id'].value).toBe('${fleetform_note.n.id}');
  });

  test("props are checked by the attributes' schemas, strictly, naming the prop", () => {
    const { stack } = newStack();
    const untyped = (p: unknown) => p as NoteProps;
    expect(() => new Note(stack, 'a', untyped({ title: 't', priority: '1' }))).toThrow(
      /Note: "priority": expected number, got the string "1"/,
    );
    expect(() => new Note(stack, 'b', untyped({ title: 't', follows_id: 'x' }))).toThrow(PropsError);
    expect(() => new Note(stack, 'c', untyped({}))).toThrow(/"title" is required/);
    expect(Object.keys(Note.propsSchema.shape)).toEqual(['title', 'text', 'priority', 'labels', 'follows']);
  });

  test('its registered checks run in the app analysis', () => {
    const { app, stack } = newStack('s');
    new Note(stack, 'ok', { title: 'fine' });
    new Note(stack, 'bad', { title: ' spaced' });
    expect(errorsOf(app)).toEqual(['s/bad title note-title']);
  });
});
