/** Bottleneck's light build (no clustering), the one Octokit's plugins load, typed as the full one. */
declare module "bottleneck/light.js" {
  import Bottleneck from "bottleneck";
  export default Bottleneck;
}
