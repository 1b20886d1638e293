import { Injectable } from '@nestjs/common';
import { CachedCorpusStatistics } from '@kw/platform-ranking';
import { SearchRepository } from '../../persistence/search.repository.js';

/** The live fragments' count and average length per set of searched workspaces, cached as `CachedCorpusStatistics` says. */
@Injectable()
export class CorpusStatisticsCache extends CachedCorpusStatistics {
  constructor(repository: SearchRepository) {
    super((workspaceIds) => repository.corpusStatistics(workspaceIds));
  }
}
