// Types of bundle.mjs for the TypeScript that imports it (tests).
export declare const ROOT: string;
export declare const BUNDLE: string;
/** The first input whose content changed since the bundle was built, or null when none did. */
export declare function changedInput(): string | null;
/** Returns the bundle's path, building it first when it is missing or an input changed. */
export declare function ensureBundle(opts?: { force?: boolean }): Promise<string>;
/** The V8 code cache file of the bundle as it is now (named after its size and modification time). */
export declare function codeCacheFile(): string;
