// Stylesheets are imported for their side effect; Vite bundles them (TypeScript 6 checks
// side-effect imports, so the module kind is declared here).
declare module '*.css';
