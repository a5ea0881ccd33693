const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: string) => UUID.test(value);

/** `nameOrId` of DESIGN §4: a UUID is an id, anything else a name. */
export const byNameOrId = (nameOrId: string) => (isUuid(nameOrId) ? { id: nameOrId } : { name: nameOrId });
