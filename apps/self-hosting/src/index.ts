export {
  APP_SERVICES,
  type AppService,
  type Listener,
  type LoadedService,
  loadRecordingReads,
} from './app-services';
export {
  COMPOSE_FILE,
  type ComposeProject,
  type ComposeService,
  loadCompose,
  type PortMapping,
  REPOSITORY_ROOT,
  readComposeDocument,
  startOrder,
  type VolumeMount,
} from './compose-file';
export { DOCKERFILE, type DockerStage, parseDockerfile, readDockerfile } from './dockerfile';
export { parseDotenv } from './dotenv';
export { InterpolationError, interpolate, interpolateValues, referencedVariables } from './interpolate';
export { type LoopbackTopology, loopbackArgs, loopbackEnv, loopbackValue } from './loopback';
export { containerEnv, ENV_EXAMPLE, exampleEnv, generatedEnv } from './stack-env';
