/** Who edited a part or a fragment, as the service's AuthenticatorInfo says, in words for a page. */

/** The service's AuthenticationType numbers. */
export const AUTHENTICATION_TYPE = { webOauth: 1, apiKey: 2, robotPartSecret: 3, locationSecret: 4 } as const;

export interface AuthenticatorInfo {
  readonly type: number;
  readonly value: string;
  readonly isDeactivated: boolean;
}

export interface EditorName {
  /** A user's e-mail, an API key's name (else `API key <id>`), or the kind of secret used. */
  readonly editedBy: string;
  /** The API key's id when it is named by its name. */
  readonly editorId?: string;
}

/** The editor of an edit by name: `keyNames` holds the names of the API keys known, by id. */
export function editorName(info: AuthenticatorInfo | undefined, keyNames: ReadonlyMap<string, string> = new Map()): EditorName {
  if (!info || info.value === '') return { editedBy: 'unknown' };
  const gone = info.isDeactivated ? ' (deactivated)' : '';
  switch (info.type) {
    case AUTHENTICATION_TYPE.webOauth:
      return { editedBy: info.value };
    case AUTHENTICATION_TYPE.apiKey: {
      const name = keyNames.get(info.value);
      return name ? { editedBy: `API key ${name}${gone}`, editorId: info.value } : { editedBy: `API key ${info.value}${gone}` };
    }
    case AUTHENTICATION_TYPE.robotPartSecret:
      return { editedBy: 'the machine part (its secret)' };
    case AUTHENTICATION_TYPE.locationSecret:
      return { editedBy: 'a location secret' };
    default:
      return { editedBy: info.value };
  }
}
