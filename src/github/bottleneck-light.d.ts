// The plugins import Bottleneck's "light" build, which ships no types of its own; its API is the
// full build's.
declare module "bottleneck/light.js" {
  import Bottleneck from "bottleneck";
  export default Bottleneck;
}
