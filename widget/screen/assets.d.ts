// Vite bundles the stylesheet the client entry imports; the type checker only needs to know
// such an import exists.
declare module '*.css';
