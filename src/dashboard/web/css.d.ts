/** Stylesheets are bundled by esbuild; importing one yields nothing to TypeScript. */
declare module '*.css';
