/**
 * The few `Reflect` metadata calls tsyringe (a dependency of @peculiar/x509) needs at load,
 * defined only where no polyfill is loaded already. Import it before @peculiar/x509.
 * `reflect-metadata` is the usual polyfill; this covers what tsyringe calls and nothing else.
 */
type Target = object;
type MetadataMap = Map<unknown, unknown>;

const store = new WeakMap<Target, MetadataMap>();
const reflect = Reflect as unknown as Record<string, unknown>;

function own(target: Target, create: boolean): MetadataMap | undefined {
  let map = store.get(target);
  if (!map && create) {
    map = new Map();
    store.set(target, map);
  }
  return map;
}

if (typeof reflect.getMetadata !== 'function') {
  const defineMetadata = (key: unknown, value: unknown, target: Target): void => {
    own(target, true)!.set(key, value);
  };
  const getOwnMetadata = (key: unknown, target: Target): unknown => own(target, false)?.get(key);
  const getMetadata = (key: unknown, target: Target): unknown => {
    for (let t: Target | null = target; t; t = Object.getPrototypeOf(t) as Target | null) {
      const map = own(t, false);
      if (map?.has(key)) return map.get(key);
    }
    return undefined;
  };
  Object.assign(reflect, {
    defineMetadata,
    getOwnMetadata,
    getMetadata,
    hasMetadata: (key: unknown, target: Target) => getMetadata(key, target) !== undefined,
    metadata: (key: unknown, value: unknown) => (target: Target) => defineMetadata(key, value, target),
  });
}

export {};
