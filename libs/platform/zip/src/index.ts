export { MalformedZipError, readZipDirectory, type ZipEntry } from './zip-directory.js';
