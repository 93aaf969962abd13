/**
 * CI configuration: the folders and files a CI or deploy service reads from the top of the
 * repository and runs, whichever forge hosts it. One list, read three ways: they are root files
 * (serial-paths.ts: shared by every package, never added to a parallel run's fence, a person at
 * harvest), control files at any depth (control-files.ts: a folder of the fence does not cover
 * them, since a pipeline may be pointed at any path), and files of the `ci` role for ranking
 * candidates (infer/file-roles.ts).
 */
import type { RepoPath } from '../types.js';

/**
 * Folders whose files a CI service runs: GitHub (`.github/workflows`), waves' own `.ci`, CircleCI,
 * GitLab (`.gitlab/` includes), Gitea and Forgejo Actions, Buildkite, Woodpecker, Semaphore, Tekton
 * (Pipelines as Code), Azure Pipelines, TeamCity (Kotlin DSL), Harness.
 */
export const CI_DIRS: readonly string[] = [
  '.github',
  '.ci',
  '.circleci',
  '.gitlab',
  '.gitea',
  '.forgejo',
  '.buildkite',
  '.woodpecker',
  '.semaphore',
  '.tekton',
  '.azure-pipelines',
  '.teamcity',
  '.harness',
];

/**
 * Files a CI or deploy service looks up by name and runs: GitLab, Woodpecker, Azure Pipelines,
 * Bitbucket, Travis, Jenkins, Drone, AppVeyor, Cirrus, Codemagic, Bitrise, Google Cloud Build, AWS
 * CodeBuild, Netlify and Vercel (their build commands).
 */
export const CI_FILES: readonly string[] = [
  '.gitlab-ci.yml',
  '.gitlab-ci.yaml',
  '.woodpecker.yml',
  '.woodpecker.yaml',
  'azure-pipelines.yml',
  'azure-pipelines.yaml',
  'bitbucket-pipelines.yml',
  '.travis.yml',
  'Jenkinsfile',
  '.drone.yml',
  '.drone.yaml',
  '.drone.star',
  'appveyor.yml',
  '.appveyor.yml',
  '.cirrus.yml',
  '.cirrus.star',
  'codemagic.yaml',
  'bitrise.yml',
  'cloudbuild.yaml',
  'cloudbuild.yml',
  'buildspec.yml',
  'netlify.toml',
  'vercel.json',
];

/** The CI configuration as root-file globs: every file under a CI folder at the top, and the CI files there. */
export const CI_GLOBS: readonly string[] = [...CI_DIRS.map((dir) => `${dir}/**`), ...CI_FILES];

const CI_DIR_SET = new Set(CI_DIRS);
const CI_FILE_SET = new Set(CI_FILES);

/** Whether a repository path is CI configuration at the top of the repository (a CI folder's file, or a CI file). */
export function isCiConfig(path: RepoPath): boolean {
  const slash = path.indexOf('/');
  return slash === -1 ? CI_FILE_SET.has(path) : CI_DIR_SET.has(path.slice(0, slash));
}
