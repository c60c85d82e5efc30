// The one export of `stopword` used here; the package ships no types.
declare module 'stopword' {
  export const eng: string[];
}
