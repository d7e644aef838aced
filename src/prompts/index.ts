export * from './builder';
